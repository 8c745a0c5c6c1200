import { eq, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { approvalDecisions, approvals, type ApprovalRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit, type AuditInput } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { signReceipt } from "./receipts";
import { queueNotifications } from "../notifications";
import { settleApprovalMail } from "./settle-held-mail";
import { settleBoundHolds } from "./bound-holds";

/** The actor, carrying `traceId` when it has none of its own. */
export const withTrace = <A extends Actor>(actor: A, traceId: string | null): A => (actor.traceId || !traceId ? actor : { ...actor, traceId });

/**
 * Ends an approval (approved, denied, expired or cancelled) inside the caller's transaction:
 * signs the receipt, emits approval.resolved and appends the audit entries (last).
 */
export async function resolveApproval(
  tx: Transaction,
  actor: Actor,
  approval: ApprovalRow,
  status: Exclude<ApprovalRow["status"], "pending">,
  audit: AuditInput[] = [],
): Promise<ApprovalRow> {
  // Whoever ends it (a member, the expiry job), the entries join the trace the agent asked in.
  actor = withTrace(actor, approval.traceId);
  const decisions = await tx.select().from(approvalDecisions).where(eq(approvalDecisions.approvalId, approval.id)).orderBy(approvalDecisions.createdAt);
  const [{ now }] = (await tx.execute<{ now: string }>(sql`select clock_timestamp()::text as now`)).rows as [{ now: string }];
  const decidedAt = new Date(now);
  const decidedBy = decisions.map((d) => d.memberId);
  const note = decisions.at(-1)?.note ?? null;
  const receipt = await signReceipt(tx, {
    approval_id: approval.id,
    workspace_id: approval.workspaceId,
    agent_id: approval.agentId,
    status,
    decided_by: decidedBy,
    decided_at: decidedAt.toISOString(),
    required_approvals: approval.requiredApprovals,
    action_class: approval.actionClass,
    amount: approval.amount === null ? null : Number(approval.amount),
    currency: approval.currency,
    action_sha256: approval.actionSha256,
    summary_sha256: approval.summarySha256,
    evidence_sha256: approval.evidenceSha256,
    expires_at: approval.expiresAt.toISOString(),
  });
  const [resolved] = await tx.update(approvals).set({ status, decidedAt, receipt }).where(eq(approvals.id, approval.id)).returning();
  const row = await settleApprovalMail(tx, actor, resolved!, status);
  const event = await emitEvent(tx, actor, {
    type: "approval.resolved",
    agentId: approval.agentId,
    data: { approval_id: approval.id, status, decided_by: decidedBy, note, decided_at: decidedAt.toISOString(), receipt, holds: [] },
  });
  await queueNotifications(tx, { workspaceId: approval.workspaceId, type: "approval.resolved", subject: approval.id });
  await appendAudit(tx, [
    ...audit,
    { actor, action: `approval.${status}`, resource: { type: "approval", id: approval.id }, agentId: approval.agentId, summary: { decided_by: decidedBy, hold_ids: approval.holdIds } },
  ]);
  // Last: commits or releases the bound holds and names their outcomes in approval.resolved.
  await settleBoundHolds(tx, actor, approval, status, event.id);
  return row;
}
