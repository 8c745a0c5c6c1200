import type { Metadata } from "next";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listMail } from "@/lib/domains/mail/list-mail";
import { configuredTransport } from "@/lib/domains/mail/send-mail";
import { Badge, Card, Empty, PageHeader, linkClass } from "../_components/ui";
import { Time } from "../_components/time";

/** Plain-text mail with its http(s) links made clickable (the text itself is never HTML). */
function Linkified({ text }: { text: string }) {
  return text.split(/(https?:\/\/[^\s<>"]+)/g).map((part, i) =>
    i % 2 === 1 ? (
      <a key={i} href={part} className={linkClass}>
        {part}
      </a>
    ) : (
      part
    ),
  );
}

export const metadata: Metadata = { title: "Captured mail" };

const STATUS_TONE = { sent: "green", captured: "indigo", queued: "amber", failed: "red" } as const;

// Admins only: captured invitations carry their links.
export default async function MailPage() {
  const { workspace } = await requireMember("admin");
  const { items } = await listMail(workspace.id, { limit: 100 });
  const sending = configuredTransport() !== null;
  return (
    <>
      <PageHeader
        title="Captured mail"
        description={
          sending
            ? "Mail is sent through Resend. This list shows what this workspace sent."
            : "No mail provider is configured (RESEND_API_KEY), so outgoing mail is kept here instead of being sent."
        }
      />
      <Card>
        {items.length === 0 ? (
          <Empty>No mail yet.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {items.map((m) => (
              <li key={m.id} className="py-3">
                <details>
                  <summary className="cursor-pointer list-none rounded focus-visible:outline-2 focus-visible:outline-indigo-600">
                    <div className="flex flex-wrap items-center justify-between gap-2">
                      <span className="font-medium text-slate-900">{m.subject}</span>
                      <span className="flex items-center gap-2 text-xs text-slate-600">
                        <Badge tone={STATUS_TONE[m.status]}>{m.status}</Badge>
                        <Time at={m.createdAt} />
                      </span>
                    </div>
                    <p className="text-sm text-slate-700">
                      To {m.to.join(", ")} · from {m.from}
                    </p>
                  </summary>
                  {m.lastError ? <p className="mt-2 text-sm text-red-800">Last error: {m.lastError}</p> : null}
                  <pre className="mt-2 whitespace-pre-wrap break-words rounded bg-slate-50 p-3 font-mono text-sm text-slate-900" data-testid="mail-body">
                    <Linkified text={m.text} />
                  </pre>
                </details>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
