import { and, desc, eq, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { EffectGuardFailedError, replayingEffectNow, withEffectGuard } from "../../../db/effect";
import { approvalPolicies, approvals, type ApprovalPolicyRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import { consumeApproval, needOfGate } from "./consume-approval";
import { createApproval } from "./create-approval";
import { actionHash } from "./receipts";
import { actorTaint } from "./actor-taint";

/** The header that carries an approved approval for an action a policy gates (a hold, a lease). */
export const APPROVAL_HEADER = "agentdraft-approval-id";

/** An action the product performs that a taint rule can gate: its class, its priority, and what a person approves. */
export type GatedAction = {
  actionClass: string;
  /** Rules with a `min_priority` apply at or above it. */
  priority: number;
  /** The action as the approval names it (and as its receipt binds it): the same request must hash to it. */
  action: Record<string, unknown>;
  /** One line for the people deciding. */
  summary: string;
  /** What the agent is doing, for the refusal's message ("hold", "lease"). */
  noun: string;
  /** The lease's resource: rules naming a resource apply only to it (or, ending in `*`, to its prefix). */
  resource?: string;
  /** The action is one `effect` statement (db/effect.ts): the absence of a rule can ride in it. */
  oneStatement?: boolean;
};

/**
 * Enforces taint rules (`untrusted_trace`) where the product performs an action: while the agent
 * is tainted (it read untrusted mail within the workspace's taint window, as the server recorded,
 * or the trace it names starts at such mail: lib/domains/approvals/actor-taint.ts), an action of the
 * rule's class at or above its `min_priority` needs a person, whatever headers the request
 * carries. Without an approval it is 403 `approval_required`, and the approval is opened for the
 * agent (once per identical action) with the action as its action; once approved, the same
 * request with the `AgentDraft-Approval-Id` header spends it (it must be that exact action) in the
 * same transaction as `perform`, so an action that fails (a conflict) leaves the approval unspent.
 * When no rule names the action, that is checked inside the action's own statement (one round
 * trip); when one does, the rule and the agent's taint are looked up first.
 */
export async function gateAction<T>(actor: Actor & { type: "key" }, gated: GatedAction, approvalId: string | null, perform: () => Promise<T>): Promise<T> {
  if (!approvalId && gated.oneStatement) {
    // The common case, in one round trip: no taint rule names this action, checked inside the
    // action's own statement (db/effect.ts withEffectGuard). Only when one does is it looked up.
    try {
      return await withEffectGuard(noRuleNames(actor, gated), perform);
    } catch (err) {
      if (!(err instanceof EffectGuardFailedError)) throw err;
    }
  }
  const policy = await taintRule(actor, gated);
  const taint = policy ? await actorTaint(actor) : null;
  if (!policy || !taint) return perform();
  const { action } = gated;
  if (approvalId) {
    // A replayed idempotent request answers what the first one did: that one spent the approval.
    if (replayingEffectNow()) return perform();
    return transaction(async () => {
      // The approval must meet this rule (class, quorum, life), not only name the action.
      await consumeApproval(actor, approvalId, action, needOfGate(policy, gated.actionClass));
      return perform();
    });
  }
  const approval = await openOnce(actor, gated, { why: `workspace policy “${policy.name}”`, untrusted_trace: taint }, policy);
  throw new AppError(
    "approval_required",
    `This ${gated.noun} follows untrusted mail ${taint.source === "trace" ? "its trace starts at" : "this agent read"} (${taint.reasons.join(", ")}) and policy “${policy.name}” needs a person's approval. Wait for approval ${approval.id}, then send the same request with the ${APPROVAL_HEADER} header.`,
    { approval: { id: approval.id, action }, policy: { id: policy.id, name: policy.name }, untrusted_trace: taint },
  );
}

/** The strictest taint rule for this action class, agent and priority, or null. */
async function taintRule(actor: Actor & { type: "key" }, gated: GatedAction): Promise<ApprovalPolicyRow | null> {
  const q = await queryable();
  const [policy] = await q
    .select()
    .from(approvalPolicies)
    .where(ruleApplies(actor, gated))
    .orderBy(desc(approvalPolicies.requiredApprovals), desc(approvalPolicies.id))
    .limit(1);
  return policy ?? null;
}

/** The guard of the one-statement path: no taint rule names this action (fixed text: db/compile-fixed.ts). */
export const noRuleNames = (actor: Actor & { type: "key" }, gated: GatedAction) => sql`not exists (select 1 from approval_policies where ${ruleApplies(actor, gated)})`;

/**
 * A taint rule that names this action: its class, the agent (or every agent), at or below its
 * priority, its resource (a rule without one, naming this one, or naming a prefix of it:
 * `deploy:*`). Plain SQL over `approval_policies` with its values as parameters, one text per
 * kind of action (with or without a resource): the guard rides in the action's own statement, a
 * named prepared statement (db/prepared.ts), which only text of this shape can be.
 */
function ruleApplies(actor: Actor & { type: "key" }, gated: GatedAction) {
  const rule = sql`approval_policies.workspace_id = ${actor.workspaceId} and approval_policies.action_class = ${gated.actionClass}
    and approval_policies.untrusted_trace
    and (approval_policies.agent_id is null or approval_policies.agent_id = ${actor.agentId}::text)
    and (approval_policies.min_priority is null or approval_policies.min_priority <= ${gated.priority}::int)`;
  if (gated.resource === undefined) return sql`${rule} and approval_policies.resource is null`;
  const r = sql`${gated.resource}::text`;
  return sql`${rule} and (approval_policies.resource is null or approval_policies.resource = ${r}
    or (right(approval_policies.resource, 1) = '*' and left(${r}, length(approval_policies.resource) - 1) = left(approval_policies.resource, length(approval_policies.resource) - 1)))`;
}

/**
 * The pending approval for exactly this action by this agent, or a new one: under a lock on the
 * action's hash, so agents retrying at once open one approval, not several.
 */
async function openOnce(actor: Actor & { type: "key" }, gated: GatedAction, evidence: Record<string, unknown>, policy: ApprovalPolicyRow): Promise<{ id: string }> {
  const hash = actionHash(gated.action);
  return transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`approval-gate:${actor.workspaceId}`}), hashtext(${hash}))`);
    const [open] = await tx
      .select({ id: approvals.id })
      .from(approvals)
      .where(
        and(
          eq(approvals.workspaceId, actor.workspaceId),
          eq(approvals.actionSha256, hash),
          eq(approvals.status, "pending"),
          sql`${approvals.expiresAt} > clock_timestamp()`,
          actor.agentId ? eq(approvals.agentId, actor.agentId) : undefined,
        ),
      )
      .limit(1);
    return (
      open ??
      createApproval(actor, {
        summary: gated.summary.slice(0, 200),
        evidence,
        action: gated.action,
        action_class: gated.actionClass,
        required_approvals: policy.requiredApprovals,
        expires_in_seconds: policy.expiresInSeconds,
      })
    );
  });
}
