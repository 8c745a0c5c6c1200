import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { listKeys } from "@/lib/domains/api-keys/list-keys";
import { listInboxes } from "@/lib/domains/mail/inboxes";
import { memberActor } from "@/lib/domains/members/memberships";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, Field, PageHeader, inputClass, linkClass, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { createAgentAction, setAgentCeilingAction } from "./actions";
import { liveTaints } from "@/lib/domains/taint/clear-taint";
import { TaintCard } from "./taint-card";

export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage() {
  const { member, workspace } = await requireMember();
  const [agents, keys, inboxes, taints] = await Promise.all([
    listAgents(workspace.id, { limit: 100 }),
    listKeys(workspace.id),
    listInboxes(memberActor(member), { limit: 100 }),
    liveTaints(workspace.id),
  ]);
  const canManage = hasRole(member.role, "admin");
  return (
    <>
      <PageHeader title="Agents" description="Named software workers. Each can hold its own API keys, which act only as that agent." />
      {canManage ? (
        <Card title="Create an agent" id="create-agent">
          <ActionForm action={createAgentAction} submit="Create agent" className="grid gap-4 sm:grid-cols-[1fr_2fr_auto] sm:items-end">
            <Field label="Name" name="name">
              <input id="name" name="name" required maxLength={64} className={inputClass} placeholder="ops-agent" />
            </Field>
            <Field label="Description (optional)" name="description">
              <input id="description" name="description" maxLength={500} className={inputClass} placeholder="Books rooms for the ops team" />
            </Field>
          </ActionForm>
        </Card>
      ) : null}
      <TaintCard member={member} agents={agents.items} taints={taints} />
      <Card title="All agents" id="all-agents">
        {agents.items.length === 0 ? (
          <Empty>No agents yet.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {agents.items.map((agent) => {
              const own = keys.filter((k) => k.agentId === agent.id);
              return (
                <li key={agent.id} className="py-3">
                  <div className="flex flex-wrap items-baseline justify-between gap-2">
                    <h3 className="font-medium text-slate-900">{agent.name}</h3>
                    <code className="font-mono text-xs text-slate-600">{agent.id}</code>
                  </div>
                  {agent.description ? <p className="text-sm text-slate-700">{agent.description}</p> : null}
                  <p className="mt-1 text-xs text-slate-600">
                    Created <Time at={agent.createdAt} /> · priority ceiling <span data-testid={`ceiling-${agent.name}`}>{agent.maxPriority}</span>
                  </p>
                  {canManage ? (
                    <ActionForm action={setAgentCeilingAction} submit="Set ceiling" submitClassName={secondaryButtonClass} className="mt-2 flex flex-wrap items-end gap-2">
                      <input type="hidden" name="agent_id" value={agent.id} />
                      <Field label={`Highest priority ${agent.name} may ask for`} name={`max-priority-${agent.id}`}>
                        <input id={`max-priority-${agent.id}`} name="max_priority" type="number" min={0} max={100} required defaultValue={agent.maxPriority} className={`${inputClass} w-24`} />
                      </Field>
                    </ActionForm>
                  ) : null}
                  <div className="mt-2 text-sm">
                    {own.length === 0 ? (
                      <span className="text-slate-600">No keys bound to this agent.</span>
                    ) : (
                      <ul className="flex flex-wrap gap-2" aria-label={`Keys of ${agent.name}`}>
                        {own.map((k) => (
                          <li key={k.id} className="flex items-center gap-1">
                            <code className="font-mono text-xs">{k.prefix}…</code>
                            {k.revokedAt ? <Badge tone="red">revoked</Badge> : <Badge tone="green">active</Badge>}
                          </li>
                        ))}
                      </ul>
                    )}
                    <p className="mt-1 text-slate-700" data-testid={`inboxes-${agent.name}`}>
                      {inboxes.items.filter((i) => i.agentId === agent.id).length === 0 ? (
                        "No inbox yet (POST /api/v1/inboxes)."
                      ) : (
                        <>
                          Inbox:{" "}
                          {inboxes.items
                            .filter((i) => i.agentId === agent.id)
                            .map((i, n) => (
                              <span key={i.id}>
                                {n > 0 ? ", " : ""}
                                <Link href={`/inboxes/${i.id}`} className={linkClass}>
                                  {i.address}
                                </Link>
                              </span>
                            ))}
                        </>
                      )}
                    </p>
                    {canManage ? (
                      <Link className={`${linkClass} mt-1 inline-block`} href={`/keys?agent=${agent.id}`}>
                        Create a key for {agent.name}
                      </Link>
                    ) : null}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </Card>
    </>
  );
}
