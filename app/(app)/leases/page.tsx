import type { Metadata } from "next";
import { requireMember } from "@/lib/auth/current-member";
import { hasRole } from "@/lib/members/roles";
import { leaseBoard } from "@/lib/leases/lease-board";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, PageHeader, Table, Time, dangerButtonClass } from "../_components/ui";
import { releaseLeaseAction } from "./actions";

export const metadata: Metadata = { title: "Leases" };
export const dynamic = "force-dynamic";

const holder = (agentName: string | null) => agentName ?? "a workspace-wide key";

export default async function LeasesPage() {
  const { member, workspace } = await requireMember();
  const { live, recent } = await leaseBoard(workspace.id);
  const canRelease = hasRole(member.role, "admin");
  return (
    <>
      <PageHeader
        title="Leases"
        description="Exclusive leases agents hold on named resources (deploy environments, repositories, tickets). Each carries a fencing token that only grows, so a stale holder's late write can be refused."
      />
      <Card title="Held now" id="live-leases">
        {live.length === 0 ? (
          <Empty>No resource is leased right now.</Empty>
        ) : (
          <Table caption="Live leases by resource" head={["Resource", "Held by", "Token", "Since", "Until", ""]}>
            {live.map((l) => (
              <tr key={l.id} data-testid={`lease-${l.resource}`}>
                <td className="py-2 pr-4">
                  <code className="font-mono text-sm text-slate-900">{l.resource}</code>
                  <div className="text-xs text-slate-600">priority {l.priority}</div>
                </td>
                <td className="py-2 pr-4">{holder(l.agentName)}</td>
                <td className="py-2 pr-4 tabular-nums">{l.fencingToken}</td>
                <td className="whitespace-nowrap py-2 pr-4">
                  <Time at={l.createdAt} />
                  {l.renewedAt ? <div className="text-xs text-slate-600">renewed <Time at={l.renewedAt} /></div> : null}
                </td>
                <td className="whitespace-nowrap py-2 pr-4">
                  <Time at={l.expiresAt} />
                </td>
                <td className="py-2">
                  {canRelease ? (
                    <ActionForm action={releaseLeaseAction} submit="Release" submitClassName={dangerButtonClass}>
                      <input type="hidden" name="lease_id" value={l.id} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Recently ended" id="recent-leases">
        {recent.length === 0 ? (
          <Empty>No lease has ended yet.</Empty>
        ) : (
          <Table caption="Ended leases, newest first" head={["Resource", "Held by", "Token", "Since", "Ended", "How"]}>
            {recent.map((l) => (
              <tr key={l.id}>
                <td className="py-2 pr-4">
                  <code className="font-mono text-sm text-slate-900">{l.resource}</code>
                </td>
                <td className="py-2 pr-4">{holder(l.agentName)}</td>
                <td className="py-2 pr-4 tabular-nums">{l.fencingToken}</td>
                <td className="whitespace-nowrap py-2 pr-4">
                  <Time at={l.createdAt} />
                </td>
                <td className="whitespace-nowrap py-2 pr-4">
                  <Time at={l.endedAt ?? l.expiresAt} />
                </td>
                <td className="py-2 pr-4">
                  <Badge tone={l.effectiveStatus === "released" ? "slate" : "amber"}>{l.effectiveStatus}</Badge>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}
