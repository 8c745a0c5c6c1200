import type { Metadata } from "next";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { leaseBoard } from "@/lib/domains/leases/lease-board";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, PageHeader, dangerButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
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
          <ul className="divide-y divide-slate-100" aria-label="Live leases by resource">
            {live.map((l) => (
              <li key={l.id} className="flex flex-wrap items-center justify-between gap-3 py-3" data-testid={`lease-${l.resource}`}>
                <div className="min-w-0">
                  <p className="flex flex-wrap items-baseline gap-x-2">
                    <code className="font-mono text-sm font-medium text-slate-900">{l.resource}</code>
                    <span className="text-sm text-slate-800">held by {holder(l.agentName)}</span>
                  </p>
                  <p className="mt-1 text-xs text-slate-700">
                    since <Time at={l.createdAt} /> · until <Time at={l.expiresAt} />
                    {l.renewedAt ? (
                      <>
                        {" "}
                        · renewed <Time at={l.renewedAt} />
                      </>
                    ) : null}
                  </p>
                  <p className="mt-0.5 text-xs text-slate-600">
                    fencing token <span className="tabular-nums font-medium text-slate-800">{l.fencingToken}</span> · priority {l.priority}
                  </p>
                </div>
                {canRelease ? (
                  <ActionForm action={releaseLeaseAction} submit="Release" submitClassName={dangerButtonClass}>
                    <input type="hidden" name="lease_id" value={l.id} />
                  </ActionForm>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Recently ended" id="recent-leases">
        {recent.length === 0 ? (
          <Empty>No lease has ended yet.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100" aria-label="Ended leases, newest first">
            {recent.map((l) => (
              <li key={l.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm" data-testid={`ended-lease-${l.id}`}>
                <span className="min-w-0">
                  <code className="font-mono text-slate-900">{l.resource}</code> <span className="text-slate-700">· {holder(l.agentName)} · token {l.fencingToken}</span>
                  <span className="block text-xs text-slate-600">
                    <Time at={l.createdAt} /> – <Time at={l.endedAt ?? l.expiresAt} />
                  </span>
                </span>
                <Badge tone={l.effectiveStatus === "released" ? "slate" : "amber"}>{l.effectiveStatus}</Badge>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
