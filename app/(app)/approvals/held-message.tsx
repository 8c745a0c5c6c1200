import { heldMessageForApproval } from "@/lib/domains/mail/outbound/held-mail";
import { serializeMessage } from "@/lib/domains/mail/serialize";
import { MessageBody, StatusBadge } from "../inboxes/message-parts";

/**
 * Mail held for this approval, shown exactly as it will be sent: its headers, its body (the HTML
 * sanitised, in the thread page's sandboxed frame) and its whole RFC 5322 source, byte for byte
 * what goes out once approved. Everything is rendered as text (escaped) except that frame.
 */
const HEADING: Record<string, string> = { pending_approval: "Message to be sent", discarded: "Message held, then discarded (never sent)", queued: "Message approved, being sent" };

export async function HeldMessage({ workspaceId, approvalId }: { workspaceId: string; approvalId: string }) {
  const held = await heldMessageForApproval(workspaceId, approvalId);
  if (!held) return null;
  const m = serializeMessage(held.message);
  const headers: [string, string][] = [
    ["From", m.from.name ? `${m.from.name} <${m.from.email}>` : m.from.email],
    ["To", m.to.map((a) => a.email).join(", ")],
    ...(m.cc.length ? ([["Cc", m.cc.map((a) => a.email).join(", ")]] as [string, string][]) : []),
    ["Subject", m.subject],
    ["Date", m.date ?? ""],
    ["Message-ID", m.message_id],
    ...(m.in_reply_to ? ([["In-Reply-To", m.in_reply_to]] as [string, string][]) : []),
  ];
  return (
    <section aria-label="Message to be sent" className="mt-3 rounded-md border border-slate-200 p-3" data-testid="held-message">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-medium text-slate-800">{HEADING[m.status] ?? "Message sent"}</h3>
        <StatusBadge status={m.status} />
      </div>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
        {headers.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="font-medium text-slate-600">{k}</dt>
            <dd className="break-all text-slate-900" data-testid={`held-${k.toLowerCase()}`}>
              {v}
            </dd>
          </div>
        ))}
      </dl>
      <div className="mt-2">
        <MessageBody m={m} />
      </div>
      <details className="mt-2" open>
        <summary className="cursor-pointer text-xs text-slate-600">
          Exact source (RFC 5322, {held.raw.length} bytes): {m.status === "pending_approval" ? "what is sent once approved" : m.status === "discarded" ? "what would have been sent" : "what was sent"}
        </summary>
        <pre className="mt-1 max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-3 text-xs text-slate-900" data-testid="held-message-source">
          {held.raw.toString("latin1")}
        </pre>
      </details>
    </section>
  );
}
