import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listPolicies } from "@/lib/domains/approvals/policies";
import { builtinStates, DEFAULT_HOLDS_ABOVE, type BuiltinState } from "@/lib/domains/approvals/builtin-policies";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { ActionForm } from "../../_components/action-form";
import { PolicyConditionFields, PolicyConditions } from "./policy-conditions";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, linkClass, secondaryButtonClass } from "../../_components/ui";
import { createPolicyAction, deletePolicyAction, setEscalationAction } from "./actions";
import { EscalationChannels } from "../../channels/escalation-channels";
import { BuiltinControls } from "./builtin-controls";
import { BUILTIN_TITLE } from "./builtin-labels";

export const metadata: Metadata = { title: "Approval policies" };

export default async function PoliciesPage() {
  const { member, workspace } = await requireMember();
  const [policies, agents, builtins] = await Promise.all([listPolicies(workspace.id), listAgents(workspace.id, { limit: 100 }), builtinStates(workspace.id)]);
  const agentName = new Map(agents.items.map((a) => [a.id, a.name]));
  const canManage = hasRole(member.role, "admin");
  return (
    <>
      <PageHeader
        title="Approval policies"
        description="Which actions need a human. Every workspace starts with four built-in rules for an agent that read mail from outside; your own rules add more: mail (email.send), holds and leases (hold.place, lease.acquire) a rule matches wait for a person, and for other actions agents ask POST /api/v1/approvals/check; a matching rule sets the minimum quorum and the expiry. Agents can read these rules (GET /api/v1/approval-policies), never change them."
      >
        <Link href="/approvals" className={linkClass}>
          Queue
        </Link>
      </PageHeader>
      <BuiltinProtection builtins={builtins} isOwner={hasRole(member.role, "owner")} />
      {canManage ? (
        <Card title="Add a rule" id="add-policy">
          <ActionForm action={createPolicyAction} submit="Add rule" className="grid gap-4 sm:grid-cols-3 sm:items-end">
            <Field label="Name" name="name">
              <input id="name" name="name" required maxLength={100} className={inputClass} placeholder="Large refunds" />
            </Field>
            <Field label="Action class" name="action_class">
              <input id="action_class" name="action_class" required maxLength={64} className={inputClass} placeholder="refund" />
            </Field>
            <Field label="Agent" name="agent_id">
              <select id="agent_id" name="agent_id" className={inputClass} defaultValue="">
                <option value="">Any agent</option>
                {agents.items.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="From amount (empty: always)" name="min_amount">
              <input id="min_amount" name="min_amount" type="number" min="0" step="0.01" className={inputClass} />
            </Field>
            <Field label="Approvals required" name="required_approvals">
              <input id="required_approvals" name="required_approvals" type="number" min="1" max="10" defaultValue="1" required className={inputClass} />
            </Field>
            <Field label="Expires after (hours)" name="expires_in_hours">
              <input id="expires_in_hours" name="expires_in_hours" type="number" min="0.02" max="720" step="any" defaultValue="24" required className={inputClass} />
            </Field>
            <PolicyConditionFields />
          </ActionForm>
        </Card>
      ) : null}
      <Card title="Rules" id="rules">
        {policies.length === 0 ? (
          <Empty>No rules (the built-in ones are off): no action needs approval unless an agent asks for one.</Empty>
        ) : (
          <Table caption="Approval rules" head={["Name", "Action", "Agent", "From amount", "Quorum", "Expiry", ""]}>
            {policies.map((p) => (
              <tr key={p.id} className="align-top" data-testid={`policy-${p.name}`}>
                <td className="py-2 pr-4">
                  {p.name}
                  {p.builtin ? (
                    <>
                      {" "}
                      <Badge tone="indigo">Built-in</Badge>
                    </>
                  ) : null}
                </td>
                <td className="py-2 pr-4 font-mono text-xs">
                  {p.actionClass}
                  <PolicyConditions policy={p} />
                </td>
                <td className="py-2 pr-4">{p.agentId ? (agentName.get(p.agentId) ?? p.agentId) : "any"}</td>
                <td className="py-2 pr-4">{p.minAmount ?? "always"}</td>
                <td className="py-2 pr-4">{p.requiredApprovals}</td>
                <td className="py-2 pr-4">{Math.round((p.expiresInSeconds / 3600) * 10) / 10} h</td>
                <td className="py-2">
                  {p.builtin ? (
                    <a href="#builtin-protection" className={`${linkClass} text-xs`}>
                      Built-in protection
                    </a>
                  ) : canManage ? (
                    <ActionForm action={deletePolicyAction} submit={`Delete rule ${p.name}`} submitClassName={dangerButtonClass}>
                      <input type="hidden" name="policy_id" value={p.id} />
                    </ActionForm>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Escalation" id="escalation">
        <p className="mb-3 text-sm text-slate-700" data-testid="escalation-status">
          {workspace.approvalEscalationSeconds
            ? `On: a request still pending ${workspace.approvalEscalationSeconds / 60} minutes after it was asked is mailed, once, to every ${workspace.approvalEscalationRole} who has not decided it.`
            : "Off: pending requests are mailed to owners and approvers when asked, and to no one else later."}
        </p>
        {canManage ? (
          <ActionForm
            key={`${workspace.approvalEscalationSeconds}-${workspace.approvalEscalationRole}`}
            action={setEscalationAction}
            submit="Save escalation" submitClassName={secondaryButtonClass} className="grid gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
            <Field label="After (minutes; empty: off)" name="after_minutes">
              <input
                id="after_minutes"
                name="after_minutes"
                type="number"
                min="1"
                max="43200"
                step="any"
                defaultValue={workspace.approvalEscalationSeconds ? workspace.approvalEscalationSeconds / 60 : ""}
                className={inputClass}
              />
            </Field>
            <Field label="Notify" name="role">
              <select id="role" name="role" defaultValue={workspace.approvalEscalationRole ?? "owner"} className={inputClass}>
                <option value="owner">Owners</option>
                <option value="admin">Admins</option>
                <option value="approver">Approvers</option>
              </select>
            </Field>
          </ActionForm>
        ) : null}
        <EscalationChannels workspaceId={workspace.id} canManage={canManage} />
      </Card>
    </>
  );
}

/** The built-in rules (lib/domains/approvals/builtin-policies.ts): on or off, what each protects; an owner changes them with a passkey. */
function BuiltinProtection({ builtins, isOwner }: { builtins: BuiltinState[]; isOwner: boolean }) {
  return (
    <Card title="Built-in protection" id="builtin-protection">
      <p className="text-sm text-slate-700">
        These rules apply only while an agent is tainted (it read mail from outside the workspace, within the taint window:{" "}
        <Link href="/settings#untrusted-mail" className={linkClass}>
          Settings
        </Link>
        ); only an owner can change them, each change confirmed with a passkey and recorded in the audit trail.
      </p>
      <ul className="mt-4 divide-y divide-slate-100">
        {builtins.map((b) => (
          <li key={b.key} className="py-3" data-testid={`builtin-${b.key}`}>
            <div className="flex flex-wrap items-center gap-2">
              <span className="text-sm font-semibold text-slate-900">{BUILTIN_TITLE[b.key]}</span>
              <Badge tone={b.on ? "green" : "amber"}>{b.on ? "On" : "Off"}</Badge>
              {b.on && b.holds_above !== null ? <span className="text-sm text-slate-700" data-testid="builtin-holds-above">holds above priority {b.holds_above}</span> : null}
            </div>
            <p className="mt-1 text-sm text-slate-700">{b.purpose}</p>
            {isOwner ? <BuiltinControls rule={b.key} title={BUILTIN_TITLE[b.key]} on={b.on} holdsAbove={b.holds_above ?? DEFAULT_HOLDS_ABOVE} /> : null}
          </li>
        ))}
      </ul>
      {isOwner ? null : <p className="mt-2 text-sm text-slate-600">Only an owner can change these, with a passkey.</p>}
    </Card>
  );
}
