import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { approvalPolicies, type ApprovalPolicyRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { policyInput } from "./schemas";

export async function createPolicy(actor: Actor, given: z.input<typeof policyInput>): Promise<ApprovalPolicyRow> {
  const input = policyInput.parse(given);
  return transaction(async (tx) => {
    const [row] = await tx
      .insert(approvalPolicies)
      .values({
        id: newId("approvalPolicy"),
        workspaceId: actor.workspaceId,
        name: input.name,
        actionClass: input.action_class,
        agentId: input.agent_id ?? null,
        minAmount: input.min_amount == null ? null : String(input.min_amount),
        inboxId: input.inbox_id ?? null,
        recipientDomain: input.recipient_domain ?? null,
        newRecipients: input.new_recipients,
        untrustedTrace: input.untrusted_trace,
        minPriority: input.min_priority ?? null,
        resource: input.resource ?? null,
        requiredApprovals: input.required_approvals,
        expiresInSeconds: input.expires_in_seconds,
      })
      .returning();
    await appendAudit(tx, [{ actor, action: "approval_policy.created", resource: { type: "approval_policy", id: row!.id }, summary: { ...input } }]);
    return row!;
  });
}

export async function deletePolicy(actor: Actor, id: string): Promise<void> {
  await transaction(async (tx) => {
    const [gone] = await tx
      .delete(approvalPolicies)
      .where(and(eq(approvalPolicies.id, id), eq(approvalPolicies.workspaceId, actor.workspaceId), isNull(approvalPolicies.builtin)))
      .returning();
    if (!gone) {
      const [builtin] = await tx.select({ name: approvalPolicies.name }).from(approvalPolicies).where(and(eq(approvalPolicies.id, id), eq(approvalPolicies.workspaceId, actor.workspaceId)));
      if (builtin) throw new AppError("conflict", `“${builtin.name}” is built in: an owner turns it off under Built-in protection, with a passkey.`, { reason: "builtin_policy" });
      throw notFound("approval policy", id);
    }
    await appendAudit(tx, [{ actor, action: "approval_policy.deleted", resource: { type: "approval_policy", id }, summary: { name: gone.name } }]);
  });
}

export async function listPolicies(workspaceId: string): Promise<ApprovalPolicyRow[]> {
  const q = await queryable();
  return q.select().from(approvalPolicies).where(eq(approvalPolicies.workspaceId, workspaceId)).orderBy(approvalPolicies.actionClass, desc(approvalPolicies.id));
}

/**
 * The rules an API key can read (read only: people set them in the web app, so an agent, even one
 * misled by the mail it reads, cannot switch off the rules that gate it). An agent-bound key sees
 * the rules for any agent and for its own.
 */
export async function policiesForKey(actor: Actor & { type: "key" }): Promise<ApprovalPolicyRow[]> {
  const q = await queryable();
  return q.select().from(approvalPolicies).where(visibleToKey(actor)).orderBy(approvalPolicies.actionClass, desc(approvalPolicies.id));
}

/** The rules a key may read: its workspace's; for an agent-bound key, those for any agent and for its own. */
const visibleToKey = (actor: Actor & { type: "key" }) =>
  and(eq(approvalPolicies.workspaceId, actor.workspaceId), actor.agentId ? or(isNull(approvalPolicies.agentId), eq(approvalPolicies.agentId, actor.agentId)) : undefined);

export async function getPolicyForKey(actor: Actor & { type: "key" }, id: string): Promise<ApprovalPolicyRow> {
  const q = await queryable();
  const [row] = await q
    .select()
    .from(approvalPolicies)
    .where(and(eq(approvalPolicies.id, id), visibleToKey(actor)));
  if (!row) throw notFound("approval policy", id);
  return row;
}

export function serializePolicy(p: ApprovalPolicyRow) {
  return {
    id: p.id,
    object: "approval_policy" as const,
    name: p.name,
    action_class: p.actionClass,
    agent_id: p.agentId,
    min_amount: p.minAmount === null ? null : Number(p.minAmount),
    required_approvals: p.requiredApprovals,
    expires_in_seconds: p.expiresInSeconds,
    inbox_id: p.inboxId,
    recipient_domain: p.recipientDomain,
    new_recipients: p.newRecipients,
    untrusted_trace: p.untrustedTrace,
    min_priority: p.minPriority,
    resource: p.resource,
    builtin: p.builtin,
    created_at: p.createdAt.toISOString(),
  };
}

/**
 * The rule that applies to an action: same action class, for this agent or any, and at or
 * above its amount threshold (an action that states no amount meets every threshold). An
 * agent-specific rule wins; then the stricter quorum.
 */
export async function matchPolicy(
  workspaceId: string,
  actionClass: string | undefined,
  agentId: string | null,
  amount: number | undefined,
  /** Whether the actor is tainted (lib/domains/approvals/actor-taint.ts): only then do taint rules apply. */
  tainted = false,
): Promise<ApprovalPolicyRow | null> {
  if (!actionClass) return null;
  const q = await queryable();
  const [row] = await q
    .select()
    .from(approvalPolicies)
    .where(
      and(
        eq(approvalPolicies.workspaceId, workspaceId),
        eq(approvalPolicies.actionClass, actionClass),
        agentId ? or(isNull(approvalPolicies.agentId), eq(approvalPolicies.agentId, agentId)) : isNull(approvalPolicies.agentId),
        amount === undefined ? undefined : or(isNull(approvalPolicies.minAmount), sql`${approvalPolicies.minAmount} <= ${amount}`),
        tainted ? undefined : eq(approvalPolicies.untrustedTrace, false),
        // Mail and hold conditions are judged where the product acts (mail-gate.ts, hold-gate.ts), not here.
        sql`${approvalPolicies.inboxId} is null and ${approvalPolicies.recipientDomain} is null and not ${approvalPolicies.newRecipients} and ${approvalPolicies.minPriority} is null and ${approvalPolicies.resource} is null`,
      ),
    )
    .orderBy(sql`${approvalPolicies.agentId} is null`, desc(approvalPolicies.requiredApprovals), desc(approvalPolicies.id))
    .limit(1);
  return row ?? null;
}
