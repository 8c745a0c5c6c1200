import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { threadOverview } from "@/lib/domains/mail/inbox-overview";
import { listMessages } from "@/lib/domains/mail/read-mail";
import { listMessagesQuery } from "@/lib/domains/mail/schemas";
import { AppError } from "@/lib/platform/errors";
import { Badge, Card, Empty, Field, PageHeader, Table, inputClass, linkClass, secondaryButtonClass } from "../../_components/ui";
import { Time } from "../../_components/time";
import { LabelChips, StatusBadge } from "../message-parts";
import { ClaimsCard } from "./claims-card";
import { hasRole } from "@/lib/domains/members/roles";
import { getInbox } from "@/lib/domains/mail/inboxes";
import { InboxSettingsCard } from "../inbox-forms";
import { listDrafts } from "@/lib/domains/mail/drafts";
import { listDraftsQuery } from "@/lib/domains/mail/draft-schemas";
import { DraftStatusBadge } from "../draft-parts";

export const metadata: Metadata = { title: "Inbox" };

export default async function InboxPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ q?: string }> }) {
  const { member } = await requireMember();
  const actor = memberActor(member);
  const { id } = await params;
  const search = ((await searchParams).q ?? "").trim().slice(0, 200);
  const overview = await threadOverview(actor, id).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  const { inbox, threads } = overview;
  const found = search ? await listMessages(actor, id, listMessagesQuery.parse({ q: search, limit: "50" })) : null;
  const outbound = await listMessages(actor, id, listMessagesQuery.parse({ direction: "outbound", limit: "20" }));
  const drafts = await listDrafts(actor, id, listDraftsQuery.parse({ limit: "20" }));
  const settings = hasRole(member.role, "admin") ? await getInbox(actor, id) : null;
  return (
    <>
      <PageHeader title={inbox.address} description={inbox.displayName ?? undefined}>
        <Link href="/inboxes" className={secondaryButtonClass}>
          All inboxes
        </Link>
      </PageHeader>
      <Card title="Search">
        <form method="get" className="flex flex-wrap items-end gap-3" role="search">
          <div className="min-w-64 flex-1">
            <Field label="Words in subject or body" name="q">
              <input id="q" name="q" defaultValue={search} className={inputClass} placeholder="staging cluster" />
            </Field>
          </div>
          <button type="submit" className={secondaryButtonClass}>
            Search
          </button>
        </form>
        {found ? (
          <div className="mt-4" data-testid="search-results">
            {found.items.length === 0 ? (
              <Empty>No message matches “{search}”.</Empty>
            ) : (
              <ul className="divide-y divide-slate-100">
                {found.items.map((m) => (
                  <li key={m.id} className="py-2 text-sm">
                    <Link href={`/inboxes/${id}/threads/${m.thread_id}#${m.id}`} className={linkClass}>
                      {m.subject || "(no subject)"}
                    </Link>{" "}
                    <span className="text-slate-600">· {m.direction === "inbound" ? `from ${m.from.email}` : `to ${m.to.map((a) => a.email).join(", ")}`}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        ) : null}
      </Card>
      <Card title="Threads">
        {threads.length === 0 ? (
          <Empty>No mail yet.</Empty>
        ) : (
          <Table caption="Threads, most recent first" head={["Subject", "Labels", "Messages", "Flags", "Last message"]}>
            {threads.map((t) => (
              <tr key={t.id}>
                <td className="py-2 pr-4">
                  <Link href={`/inboxes/${id}/threads/${t.id}`} className={linkClass}>
                    {t.subject || "(no subject)"}
                  </Link>
                </td>
                <td className="py-2 pr-4">
                  <LabelChips labels={t.labels} />
                </td>
                <td className="py-2 pr-4 tabular-nums">{t.messageCount}</td>
                <td className="space-x-1 py-2 pr-4">
                  {t.flagged ? <Badge tone="red">{t.flagged} flagged</Badge> : null}
                  {t.automated ? <Badge tone="amber">{t.automated} automated</Badge> : null}
                  {t.undelivered ? <Badge tone="red">{t.undelivered} undelivered</Badge> : null}
                  {t.captured ? <Badge tone="indigo">{t.captured} captured</Badge> : null}
                  {!t.flagged && !t.automated && !t.undelivered && !t.captured ? <span className="text-slate-500">none</span> : null}
                </td>
                <td className="py-2 pr-4">
                  <Time at={t.lastMessageAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Drafts">
        {drafts.items.length === 0 ? (
          <Empty>No drafts: an agent writes one with POST /v1/inboxes/{"{id}"}/drafts (or the create_draft tool) for a person to review.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="draft-list">
            {drafts.items.map((d) => (
              <li key={d.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span>
                  <Link href={`/inboxes/${id}/drafts/${d.id}`} className={linkClass}>
                    {d.subject || "(no subject)"}
                  </Link>{" "}
                  <span className="text-slate-600">{d.to.length ? `to ${d.to.join(", ")}` : "no recipients yet"}</span>
                </span>
                <span className="flex items-center gap-2 text-xs text-slate-600">
                  <DraftStatusBadge status={d.status} />
                  <Time at={d.updatedAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <ClaimsCard actor={actor} inboxId={id} />
      <Card title="Sent by the agent">
        {outbound.items.length === 0 ? (
          <Empty>The agent has not sent mail from this inbox.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="outbound-list">
            {outbound.items.map((m) => (
              <li key={m.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span>
                  <Link href={`/inboxes/${id}/threads/${m.thread_id}#${m.id}`} className={linkClass}>
                    {m.subject}
                  </Link>{" "}
                  <span className="text-slate-600">to {m.to.map((a) => a.email).join(", ")}</span>
                </span>
                <span className="flex items-center gap-2 text-xs text-slate-600">
                  <StatusBadge status={m.status} />
                  <Time at={new Date(m.created_at)} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
      {settings ? <InboxSettingsCard inbox={settings} /> : null}
    </>
  );
}
