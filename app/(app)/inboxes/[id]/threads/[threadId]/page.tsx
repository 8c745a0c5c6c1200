import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { getThread } from "@/lib/domains/mail/read-mail";
import { EXTERNAL_CONTENT_NOTICE } from "@/lib/domains/mail/serialize";
import { AppError } from "@/lib/platform/errors";
import { Card, PageHeader, secondaryButtonClass } from "../../../../_components/ui";
import { Time } from "../../../../_components/time";
import { LabelChips, MessageBody, SecurityFlags, StatusBadge } from "../../../message-parts";
import { ThreadLabelsForm } from "../../../inbox-forms";
import { hasRole } from "@/lib/domains/members/roles";

export const metadata: Metadata = { title: "Thread" };

const who = (a: { name: string | null; email: string }) => (a.name ? `${a.name} <${a.email}>` : a.email);

export default async function ThreadPage({ params }: { params: Promise<{ id: string; threadId: string }> }) {
  const { member } = await requireMember();
  const { id, threadId } = await params;
  const { thread, labels, messages } = await getThread(memberActor(member), threadId).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  if (thread.inboxId !== id) notFound();
  return (
    <>
      <PageHeader title={thread.subject || "(no subject)"} description={`${thread.messageCount} message${thread.messageCount === 1 ? "" : "s"} · ${EXTERNAL_CONTENT_NOTICE}`}>
        <Link href={`/inboxes/${id}`} className={secondaryButtonClass}>
          Back to the inbox
        </Link>
      </PageHeader>
      <div className="mb-2">
        <LabelChips labels={labels} />
      </div>
      {hasRole(member.role, "approver") ? <ThreadLabelsForm inboxId={id} threadId={threadId} /> : null}
      <ol className="space-y-4">
        {messages.map((m) => (
          <li key={m.id} id={m.id} data-testid="thread-message">
            <Card>
              <div className="mb-3 flex flex-wrap items-start justify-between gap-2">
                <div className="text-sm">
                  <p className="font-medium text-slate-900">
                    {m.direction === "inbound" ? "From" : "Sent by the agent as"} {who(m.from)}
                  </p>
                  <p className="text-slate-700">To {m.to.map(who).join(", ")}</p>
                  {m.cc.length ? <p className="text-slate-700">Cc {m.cc.map(who).join(", ")}</p> : null}
                </div>
                <div className="flex items-center gap-2 text-xs text-slate-600">
                  {/* Sent mail's status badge says more than its `sent` label (sent, captured, queued...). */}
                  <LabelChips labels={m.direction === "outbound" ? m.labels.filter((l) => l !== "sent") : m.labels} />
                  <StatusBadge status={m.status} />
                  <Time at={new Date(m.created_at)} />
                </div>
              </div>
              {m.direction === "outbound" && m.delivery?.last_error ? (
                <p className="mb-2 rounded bg-red-50 p-2 text-sm text-red-900">
                  {m.status === "queued" ? "Last attempt failed, retrying" : "Not delivered"}: {m.delivery.last_error}
                </p>
              ) : null}
              <SecurityFlags m={m} />
              <div className="mt-3">
                <MessageBody m={m} />
              </div>
              {m.body_truncated ? (
                <p className="mt-2 text-xs text-slate-600">
                  Shortened: this message ({m.size_bytes} bytes) is longer than what is kept for reading; the whole of it is at <code>GET /v1/messages/{m.id}/raw</code>.
                </p>
              ) : null}
              {m.attachments.length ? (
                <div className="mt-2 text-xs text-slate-600">
                  <p>{m.direction === "outbound" ? "Attached (sent):" : "Attachments:"}</p>
                  <ul className="ml-4 list-disc" data-testid="attachments">
                    {m.attachments.map((a) => (
                      <li key={a.id}>
                        <a className="underline" href={`/inboxes/${id}/messages/${m.id}/attachments/${a.id}`} download={a.filename ?? undefined}>
                          {a.filename ?? "(unnamed)"}
                        </a>{" "}
                        ({a.content_type}, {a.size} bytes)
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
              {m.forwarded_from ? (
                <p className="mt-2 text-xs text-slate-600">
                  Forwarded from <a className="underline" href={`#${m.forwarded_from}`}>{m.forwarded_from}</a>
                </p>
              ) : null}
            </Card>
          </li>
        ))}
      </ol>
    </>
  );
}
