import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { inboxOverview } from "@/lib/domains/mail/inbox-overview";
import { configuredTransport } from "@/lib/domains/mail/send-mail";
import { Badge, Card, Empty, PageHeader, Table, linkClass } from "../_components/ui";
import { Time } from "../_components/time";
import { hasRole } from "@/lib/domains/members/roles";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { env } from "@/lib/platform/config/env";
import { CreateInboxCard } from "./inbox-forms";
import { domainUsable, listDomains } from "@/lib/domains/mail/mail-domains";

export const metadata: Metadata = { title: "Inboxes" };

export default async function InboxesPage() {
  const { member } = await requireMember();
  const inboxes = await inboxOverview(memberActor(member));
  const sending = configuredTransport() !== null;
  const agents = hasRole(member.role, "admin") ? (await listAgents(member.workspaceId, { limit: 100 })).items : null;
  const ownDomains = agents ? (await listDomains(memberActor(member), { limit: 100 })).items.filter(domainUsable).map((d) => d.name) : [];
  return (
    <>
      <PageHeader
        title="Inboxes"
        description={
          <>
            Each agent&apos;s email addresses and what came in and went out.{" "}
            {sending ? "Outgoing mail is sent through Resend." : "No RESEND_API_KEY is set: agents' outgoing mail is captured here, not sent."}
          </>
        }
      />
      {agents ? <CreateInboxCard agents={agents.map((a) => ({ id: a.id, name: a.name }))} domain={env().AGENTDRAFT_MAIL_DOMAIN} ownDomains={ownDomains} /> : null}
      <Card>
        {inboxes.length === 0 ? (
          <Empty>No inboxes yet. An agent creates one with POST /api/v1/inboxes.</Empty>
        ) : (
          <Table caption="Inboxes" head={["Address", "Agent", "Received", "Sent", "Flagged", "Last message"]}>
            {inboxes.map((i) => (
              <tr key={i.id}>
                <td className="py-2 pr-4">
                  <Link href={`/inboxes/${i.id}`} className={linkClass}>
                    {i.address}
                  </Link>
                  {i.displayName ? <span className="block text-xs text-slate-600">{i.displayName}</span> : null}
                </td>
                <td className="py-2 pr-4">{i.agentName}</td>
                <td className="py-2 pr-4 tabular-nums">{i.received}</td>
                <td className="py-2 pr-4 tabular-nums">{i.sent}</td>
                <td className="py-2 pr-4">{i.flagged > 0 ? <Badge tone="red">{i.flagged} flagged</Badge> : <span className="text-slate-500">none</span>}</td>
                <td className="py-2 pr-4">
                  <Time at={i.lastMessageAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}
