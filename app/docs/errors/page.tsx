import type { Metadata } from "next";
import Link from "next/link";
import { ERROR_CODES, ERROR_TITLES, type ErrorCode } from "@/lib/platform/errors";
import { ERROR_GUIDE } from "@/lib/composition/docs/error-guide";
import { CodeBlock, Prose, Table, docLink } from "../_components";

export const metadata: Metadata = { title: "Error codes" };
export const dynamic = "force-static";

const EXAMPLE = `{
  "type": "/docs/errors#hold_conflict",
  "title": "The time is taken",
  "status": 409,
  "detail": "The time overlaps a live hold of priority 80 (yours: 70).",
  "code": "hold_conflict",
  "request_id": "req_...",
  "conflicts": [{ "type": "hold", "id": "hold_...", "calendar_ids": ["cal_..."], "agent_id": "agent_...", "priority": 80,
                  "start_time": "2030-01-01T15:00:00.000Z", "end_time": "2030-01-01T17:00:00.000Z", "expires_at": "..." }]
}`;

// GET /docs/errors — every problem code; each problem's `type` links here
export default function ErrorCodesPage() {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  return (
    <main className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-3xl font-semibold tracking-tight">Error codes</h1>
      <p className="mt-3 max-w-3xl text-slate-700">
        Every error is an RFC 9457 <code className="rounded bg-slate-200 px-1">application/problem+json</code> document with a stable{" "}
        <code className="rounded bg-slate-200 px-1">code</code>. Match on <code className="rounded bg-slate-200 px-1">code</code>, never on{" "}
        <code className="rounded bg-slate-200 px-1">detail</code>. The MCP server returns the same documents as tool errors. See also the{" "}
        <Link className={docLink} href="/docs/api#schema-Problem">
          Problem schema
        </Link>
        .
      </p>
      <CodeBlock label="Example">{EXAMPLE}</CodeBlock>
      <Table head={["Code", "Status", "Title", "What to do"]}>
        {codes.map((code) => (
          <tr key={code} id={code} className="scroll-mt-4 border-b border-slate-100 target:bg-amber-50">
            <td className="py-2 pr-4 font-mono text-xs font-semibold whitespace-nowrap">{code}</td>
            <td className="py-2 pr-4 font-mono text-xs">{ERROR_CODES[code]}</td>
            <td className="py-2 pr-4 text-slate-800">{ERROR_TITLES[code]}</td>
            <td className="py-2 text-slate-700">
              <Prose text={ERROR_GUIDE[code]} />
            </td>
          </tr>
        ))}
      </Table>
    </main>
  );
}
