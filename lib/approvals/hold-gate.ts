import { and, desc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { approvalPolicies, approvals } from "../../db/schema";
import type { Actor } from "../actor";
import { AppError } from "../errors";
import type { PlaceHoldInput } from "../holds/schemas";
import { consumeApproval } from "./consume-approval";
import { createApproval } from "./create-approval";
import { actionHash } from "./receipts";
import { traceTaint } from "./trace-taint";

export const HOLD_ACTION_CLASS = "hold.place";

/** The header that carries an approved approval for a hold a policy gates. */
export const APPROVAL_HEADER = "agentdraft-approval-id";

/**
 * Enforces `hold.place` taint rules where the product places holds: a hold at or above a rule's
 * `min_priority`, asked in a trace that starts at untrusted mail, needs a person. Without an
 * approval it is 403 `approval_required`, and the approval is opened for the agent (once per
 * identical hold) with the hold as its action; once approved, the same request with the
 * `AgentDraft-Approval-Id` header spends it (it must be that exact hold) and proceeds. Only
 * traced requests pay for the check.
 */
export async function gateHold(actor: Actor & { type: "key" }, input: PlaceHoldInput, approvalId: string | null): Promise<void> {
  if (!actor.traceId) return;
  const q = await queryable();
  const [policy] = await q
    .select()
    .from(approvalPolicies)
    .where(
      and(
        eq(approvalPolicies.workspaceId, actor.workspaceId),
        eq(approvalPolicies.actionClass, HOLD_ACTION_CLASS),
        eq(approvalPolicies.untrustedTrace, true),
        actor.agentId ? or(isNull(approvalPolicies.agentId), eq(approvalPolicies.agentId, actor.agentId)) : isNull(approvalPolicies.agentId),
        or(isNull(approvalPolicies.minPriority), lte(approvalPolicies.minPriority, input.priority)),
      ),
    )
    .orderBy(desc(approvalPolicies.requiredApprovals))
    .limit(1);
  if (!policy) return;
  const taint = await traceTaint(actor.workspaceId, actor.traceId);
  if (!taint) return;
  const action = { type: HOLD_ACTION_CLASS, calendar_ids: [...new Set(input.calendar_ids)].sort(), start_time: input.start_time, end_time: input.end_time, priority: input.priority };
  if (approvalId) {
    await consumeApproval(actor, approvalId, action);
    return;
  }
  const hash = actionHash(action);
  const [open] = await q
    .select({ id: approvals.id })
    .from(approvals)
    .where(and(eq(approvals.workspaceId, actor.workspaceId), eq(approvals.actionSha256, hash), eq(approvals.status, "pending"), sql`${approvals.expiresAt} > clock_timestamp()`, actor.agentId ? eq(approvals.agentId, actor.agentId) : undefined))
    .limit(1);
  const approval =
    open ??
    (await createApproval(actor, {
      summary: `Hold at priority ${input.priority} from ${input.start_time} to ${input.end_time}`.slice(0, 200),
      evidence: { why: `workspace policy “${policy.name}”`, untrusted_trace: taint },
      action,
      action_class: HOLD_ACTION_CLASS,
      required_approvals: policy.requiredApprovals,
      expires_in_seconds: policy.expiresInSeconds,
    }));
  throw new AppError(
    "approval_required",
    `This hold is traced to untrusted mail (${taint.reasons.join(", ")}) and policy “${policy.name}” needs a person's approval. Wait for approval ${approval.id}, then send the same request with the ${APPROVAL_HEADER} header.`,
    { approval: { id: approval.id, action }, policy: { id: policy.id, name: policy.name }, untrusted_trace: taint },
  );
}
