import { inArray } from "drizzle-orm";
import type { Queryable } from "../../../db/client";
import { approvalDecisions, type ApprovalRow } from "../../../db/schema";
import { boundHoldsOf } from "./bound-holds";

/** What callers see: a pending approval past its expiry is already `expired`. */
export const effectiveApprovalStatus = (a: Pick<ApprovalRow, "status" | "expiresAt">, now = new Date()) =>
  a.status === "pending" && a.expiresAt.getTime() <= now.getTime() ? ("expired" as const) : a.status;

export async function serializeApprovals(q: Queryable, rows: ApprovalRow[]) {
  const decisions = rows.length ? await q.select().from(approvalDecisions).where(inArray(approvalDecisions.approvalId, rows.map((r) => r.id))).orderBy(approvalDecisions.createdAt) : [];
  const bound = await boundHoldsOf(q, rows);
  const now = new Date();
  return rows.map((a) => {
    const mine = decisions.filter((d) => d.approvalId === a.id);
    return {
      id: a.id,
      object: "approval" as const,
      agent_id: a.agentId,
      summary: a.summary,
      evidence: a.evidence,
      action: a.action ?? null,
      action_sha256: a.actionSha256,
      action_class: a.actionClass,
      amount: a.amount === null ? null : Number(a.amount),
      currency: a.currency,
      status: effectiveApprovalStatus(a, now),
      required_approvals: a.requiredApprovals,
      approvals: mine.filter((d) => d.decision === "approve").length,
      policy_id: a.policyId,
      expires_at: a.expiresAt.toISOString(),
      decided_at: a.decidedAt?.toISOString() ?? null,
      escalated_at: a.escalatedAt?.toISOString() ?? null,
      decisions: mine.map((d) => ({ member_id: d.memberId, decision: d.decision, note: d.note, decided_at: d.createdAt.toISOString() })),
      hold_ids: a.holdIds,
      on_approve: a.onApprove,
      holds: bound.get(a.id) ?? [],
      receipt: a.receipt,
      consumed: a.consumedAt !== null,
      consumed_at: a.consumedAt?.toISOString() ?? null,
      created_at: a.createdAt.toISOString(),
    };
  });
}
