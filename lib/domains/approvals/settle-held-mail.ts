import { eq, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { approvals, type ApprovalRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { settleHeldMail } from "../mail";

/**
 * When an approval that holds a message resolves: approved, the message goes out and the
 * approval is spent by that (it cannot also be consumed by an agent), with the same
 * `approval.consumed` event and audit entry as an agent's consume; otherwise the message is
 * discarded. Runs in the resolving transaction, so a decision and its mail commit together.
 */
export async function settleApprovalMail(tx: Transaction, actor: Actor, approval: ApprovalRow, status: ApprovalRow["status"]): Promise<ApprovalRow> {
  const released = await settleHeldMail(tx, actor, approval.id, status === "approved");
  if (!released || status !== "approved") return approval;
  const [spent] = await tx.update(approvals).set({ consumedAt: sql`clock_timestamp()` }).where(eq(approvals.id, approval.id)).returning();
  const data = { approval_id: spent!.id, action_sha256: spent!.actionSha256, action_class: spent!.actionClass, consumed_at: spent!.consumedAt!.toISOString(), consumed_by: null, message_id: released.id };
  await emitEvent(tx, actor, { type: "approval.consumed", agentId: spent!.agentId, data });
  await appendAudit(tx, [
    { actor, action: "approval.consumed", resource: { type: "approval", id: spent!.id }, agentId: spent!.agentId, summary: { action_sha256: spent!.actionSha256, action_class: spent!.actionClass, message_id: released.id } },
  ]);
  return spent!;
}
