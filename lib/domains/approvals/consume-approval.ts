import { and, eq, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { approvals, type ApprovalPolicyRow, type ApprovalRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { actionHash } from "./receipts";
import { withTrace } from "./resolve-approval";
import { serializeApprovals } from "./serialize";
import { matchPolicy } from "./policies";
import { traceTaint } from "./trace-taint";
import { actorTaint } from "./actor-taint";
import { actionFacts } from "./action-class";

/**
 * What the workspace rule that gates an action asks of the approval that pays for it, decided by
 * the server (never by the approval's own fields, which the agent that opened it chose): its
 * action class, at least `requiredApprovals` member votes to approve, and, where the product
 * performs the action, a life no longer than the rule's.
 */
export type ApprovalNeed = { policy: Pick<ApprovalPolicyRow, "id" | "name">; actionClass: string | null; requiredApprovals: number; expiresInSeconds: number | null };

/** The need of a rule gating an action of `actionClass` that the product performs (a hold, a lease). */
export const needOfGate = (policy: ApprovalPolicyRow, actionClass: string): ApprovalNeed => ({
  policy: { id: policy.id, name: policy.name },
  actionClass,
  requiredApprovals: policy.requiredApprovals,
  expiresInSeconds: policy.expiresInSeconds,
});

/**
 * For an action AgentDraft does not perform (POST /v1/approvals/{id}/consume): the rule that gates
 * the action's class and amount now (lib/domains/approvals/action-class.ts), tainted if the spender is (its agent read untrusted
 * mail, or its trace starts there) or the approval's trace is (a rule added or raised after the
 * approval opened counts). Null when no rule applies or the approval is not visible.
 */
async function needNow(actor: Actor & { type: "key" }, id: string): Promise<ApprovalNeed | null> {
  const q = await queryable();
  const [a] = await q.select().from(approvals).where(and(eq(approvals.id, id), eq(approvals.workspaceId, actor.workspaceId)));
  if (!a) return null;
  // The class and amount of the action itself (the one a person approved: consume spends only on
  // it), else the approval's own; an approval labelled otherwise than its action, or opened before
  // the server judged by the action (#48), then falls short: approval_insufficient, left unspent.
  const seen = actionFacts(a.action as Record<string, unknown> | null);
  const actionClass = seen.actionClass ?? a.actionClass;
  if (!actionClass) return null;
  const amount = seen.amount ?? (a.amount === null ? undefined : Number(a.amount));
  // The spender's taint (its agent's reads, or its trace), or the approval's own trace's.
  const tainted = (await actorTaint(actor)) !== null || (await traceTaint(actor.workspaceId, a.traceId)) !== null;
  const policy = await matchPolicy(actor.workspaceId, actionClass, a.agentId, amount, tainted);
  return policy ? { policy: { id: policy.id, name: policy.name }, actionClass, requiredApprovals: policy.requiredApprovals, expiresInSeconds: null } : null;
}

/** `created_at` is the opening transaction's start and `expires_at` is set within it: a minute covers the gap. */
const LIFE_SLACK_SECONDS = 60;

/** SQL: how many members voted to approve this approval (the server's count, not the quorum the agent asked for). */
const votes = sql<number>`(select count(*)::int from approval_decisions d where d.approval_id = "approvals"."id" and d.decision = 'approve')`;
/** SQL: whether the approval releases held mail. Spelled qualified: drizzle writes a column in a select list unqualified, which a subquery would take for its own. */
const holdsMail = sql<boolean>`exists (select 1 from messages m where m.approval_id = "approvals"."id")`;

/**
 * Spends an approved approval once (SPEC §13): one conditional UPDATE that succeeds only for
 * an approved, unexpired, unspent approval of this workspace (and of this agent, for an
 * agent-bound key) whose action hashes to the approved one, and that meets the rule gating the
 * action (`need`; by default the rule that gates its class and amount now). Fifty racing
 * consumers: one wins. The audit entry and `approval.consumed` commit with it.
 */
export async function consumeApproval(actor: Actor & { type: "key" }, id: string, action: Record<string, unknown> | undefined, need?: ApprovalNeed | null) {
  const hash = action === undefined ? null : actionHash(action);
  if (need === undefined) need = await needNow(actor, id);
  const row = await transaction(async (tx) => {
    const [spent] = await tx
      .update(approvals)
      .set({ consumedAt: sql`clock_timestamp()`, consumedByKeyId: actor.keyId })
      .where(
        and(
          eq(approvals.id, id),
          eq(approvals.workspaceId, actor.workspaceId),
          actor.agentId ? eq(approvals.agentId, actor.agentId) : undefined,
          eq(approvals.status, "approved"),
          sql`${approvals.consumedAt} is null`,
          sql`${approvals.expiresAt} > clock_timestamp()`,
          sql`${approvals.actionSha256} is not distinct from ${hash}`,
          // Mail the product holds is spent by sending it, never by an agent.
          sql`not ${holdsMail}`,
          need ? sql`${approvals.actionClass} is not distinct from ${need.actionClass}` : undefined,
          need ? sql`${votes} >= ${need.requiredApprovals}` : undefined,
          need?.expiresInSeconds != null ? sql`${approvals.expiresAt} <= ${approvals.createdAt} + make_interval(secs => ${need.expiresInSeconds + LIFE_SLACK_SECONDS})` : undefined,
        ),
      )
      .returning();
    if (!spent) return null;
    const traced = withTrace(actor, spent.traceId);
    await emitEvent(tx, traced, {
      type: "approval.consumed",
      agentId: spent.agentId,
      data: { approval_id: spent.id, action_sha256: spent.actionSha256, action_class: spent.actionClass, consumed_at: spent.consumedAt!.toISOString(), consumed_by: actor.keyId },
    });
    await appendAudit(tx, [
      { actor: traced, action: "approval.consumed", resource: { type: "approval", id: spent.id }, agentId: spent.agentId, summary: { action_sha256: spent.actionSha256, action_class: spent.actionClass, policy_id: need?.policy.id ?? null } },
    ]);
    return spent;
  });
  if (!row) throw await whyNotConsumable(actor, id, hash, need);
  return (await serializeApprovals(await queryable(), [row]))[0]!;
}

/** Says which condition failed (read after the UPDATE matched nothing), as a 404 or a 409 with its own code. */
async function whyNotConsumable(actor: Actor & { type: "key" }, id: string, hash: string | null, need: ApprovalNeed | null): Promise<AppError> {
  const q = await queryable();
  const [row] = await q
    .select({
      approval: approvals,
      live: sql<boolean>`${approvals.expiresAt} > clock_timestamp()`,
      gated: holdsMail,
      votes,
      lifeSeconds: sql<number>`extract(epoch from ${approvals.expiresAt} - ${approvals.createdAt})::float8`,
    })
    .from(approvals)
    .where(and(eq(approvals.id, id), eq(approvals.workspaceId, actor.workspaceId)));
  if (!row || (actor.agentId && row.approval.agentId !== actor.agentId)) return notFound("approval", id);
  const refusal = consumeRefusal(row.approval, Boolean(row.live), Boolean(row.gated), hash);
  if (refusal.code !== "action_mismatch" || !need) return refusal;
  return shortOf(row.approval, need, Number(row.votes), Number(row.lifeSeconds)) ?? refusal;
}

/** How an approved approval falls short of the rule that gates the action, or null when it does not. */
function shortOf(a: ApprovalRow, need: ApprovalNeed, votes: number, lifeSeconds: number): AppError | null {
  const rule = `policy “${need.policy.name}”`;
  const detail = { policy: need.policy, action_class: need.actionClass, approval_action_class: a.actionClass, required_approvals: need.requiredApprovals, approvals: votes, expires_in_seconds: need.expiresInSeconds };
  if (a.actionClass !== need.actionClass) return new AppError("approval_insufficient", `Approval ${a.id} is for action class ${a.actionClass ?? "(none)"}, but ${rule} gates ${need.actionClass}.`, detail);
  if (votes < need.requiredApprovals) return new AppError("approval_insufficient", `Approval ${a.id} has ${votes} approving vote(s); ${rule} needs ${need.requiredApprovals}.`, detail);
  if (need.expiresInSeconds != null && lifeSeconds > need.expiresInSeconds + LIFE_SLACK_SECONDS)
    return new AppError("approval_insufficient", `Approval ${a.id} lasts longer than ${rule} allows (${need.expiresInSeconds} s).`, detail);
  return null;
}

export function consumeRefusal(a: ApprovalRow, live: boolean, gated: boolean, hash: string | null): AppError {
  const status = a.status === "pending" && !live ? "expired" : a.status;
  if (a.consumedAt) return new AppError("approval_consumed", `Approval ${a.id} was already spent at ${a.consumedAt.toISOString()}.`, { consumed_at: a.consumedAt.toISOString() });
  if (gated) return new AppError("approval_consumed", `Approval ${a.id} releases a held message: the product spends it by sending that message.`, { consumed_at: null });
  if (status === "expired" || (status === "approved" && !live)) return new AppError("approval_expired", `Approval ${a.id} expired at ${a.expiresAt.toISOString()}.`, { expires_at: a.expiresAt.toISOString() });
  if (status !== "approved") return new AppError("approval_not_approved", `Approval ${a.id} is ${status}, not approved.`, { approval_status: status });
  return new AppError("action_mismatch", "The action does not hash to the approved one: spend an approval only on the exact action a person saw.", {
    approved_action_sha256: a.actionSha256,
    given_action_sha256: hash,
  });
}
