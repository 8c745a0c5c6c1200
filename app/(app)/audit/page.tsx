import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listAudit } from "@/lib/domains/audit/list-audit";
import { listAuditQuery } from "@/lib/domains/audit/schemas";
import { verifyChain } from "@/lib/platform/audit/verify-chain";
import { Badge, Card, Empty, Field, PageHeader, Table, buttonClass, inputClass, linkClass, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";

export const metadata: Metadata = { title: "Audit trail" };

const FILTERS = [
  ["action", "Action", "agent.created or api_key.*"],
  ["resource_id", "Resource id", "key_…"],
  ["agent_id", "Agent id", "agent_…"],
  ["trace_id", "Trace id", ""],
] as const;

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { workspace } = await requireMember();
  const raw = await searchParams;
  const given = Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string" && e[1].trim() !== ""));
  const parsed = listAuditQuery.safeParse({ limit: 25, ...given });
  const [chain, page] = await Promise.all([verifyChain(workspace.id), parsed.success ? listAudit(workspace.id, parsed.data) : null]);
  const next = page?.hasMore ? new URLSearchParams({ ...given, starting_after: page.items.at(-1)!.id }) : null;

  return (
    <>
      <PageHeader title="Audit trail" description="Every state change, append-only and hash-chained. Newest first." />
      <Card title="Chain status" id="chain">
        <p className="flex flex-wrap items-center gap-2 text-sm text-slate-800" data-testid="chain-status">
          {chain.valid ? <Badge tone="green">Verified</Badge> : <Badge tone="red">Broken</Badge>}
          {chain.valid
            ? `All ${chain.entries_checked} entries check out; head at seq ${chain.head.seq}.`
            : `First broken link at seq ${chain.first_broken?.seq}: ${chain.first_broken?.detail}.`}
        </p>
      </Card>
      <Card title="Filter" id="filter">
        <form method="get" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {FILTERS.map(([name, label, placeholder]) => (
            <Field key={name} label={label} name={name}>
              <input id={name} name={name} defaultValue={given[name] ?? ""} placeholder={placeholder} className={inputClass} />
            </Field>
          ))}
          <div className="flex gap-2 sm:col-span-2 lg:col-span-4">
            <button type="submit" className={buttonClass}>
              Apply filters
            </button>
            <Link href="/audit" className={secondaryButtonClass}>
              Clear
            </Link>
          </div>
        </form>
        {!parsed.success ? (
          <div role="alert" className="mt-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
            {parsed.error.issues.map((i) => (
              <p key={i.path.join(".")}>
                {i.path.join(".")}: {i.message}
              </p>
            ))}
          </div>
        ) : null}
      </Card>
      <Card title="Entries" id="entries">
        {!page || page.items.length === 0 ? (
          <Empty>No entries match.</Empty>
        ) : (
          <Table caption="Audit entries, newest first" head={["Seq", "When", "Actor", "Action", "Resource", "Outcome"]}>
            {page.items.map((e) => (
              <tr key={e.id} className="align-top">
                <td className="py-2 pr-4 font-mono text-xs">{e.seq}</td>
                <td className="whitespace-nowrap py-2 pr-4 text-xs">
                  <Time at={e.at} />
                </td>
                <td className="py-2 pr-4 text-xs">
                  <div className="text-slate-900">{e.actorType}</div>
                  <code className="block max-w-[11rem] truncate font-mono text-slate-600" title={e.actorId}>
                    {e.actorId}
                  </code>
                </td>
                <td className="py-2 pr-4">
                  <code className="font-mono text-xs text-slate-900">{e.action}</code>
                </td>
                <td className="py-2 pr-4 text-xs">
                  <div className="text-slate-900">{e.resourceType}</div>
                  <Link className={`${linkClass} block max-w-[14rem] truncate font-mono font-normal`} title={e.resourceId} href={`/audit?resource_id=${encodeURIComponent(e.resourceId)}`}>
                    {e.resourceId}
                  </Link>
                </td>
                <td className="py-2">
                  <Badge tone={e.outcome === "succeeded" ? "green" : "amber"}>{e.outcome}</Badge>
                </td>
              </tr>
            ))}
          </Table>
        )}
        <nav aria-label="Pages" className="mt-4 flex gap-3 text-sm">
          {given.starting_after ? (
            <Link className={linkClass} href={`/audit?${new URLSearchParams(Object.fromEntries(Object.entries(given).filter(([k]) => k !== "starting_after")))}`}>
              Newest
            </Link>
          ) : null}
          {next ? (
            <Link className={linkClass} href={`/audit?${next}`}>
              Older entries
            </Link>
          ) : null}
        </nav>
      </Card>
    </>
  );
}
