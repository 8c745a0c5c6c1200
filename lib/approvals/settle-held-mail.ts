import { eq, sql } from "drizzle-orm";
import type { Transaction } from "../../db/client";
import { approvals, type ApprovalRow } from "../../db/schema";
import type { Actor } from "../actor";
import { settleHeldMail } from "../mail/outbound/held-mail";

/**
 * When an approval that holds a message resolves: approved, the message goes out and the
 * approval is spent by that (it cannot also be consumed by an agent); otherwise the message is
 * discarded. Runs in the resolving transaction, so a decision and its mail commit together.
 */
export async function settleApprovalMail(tx: Transaction, actor: Actor, approval: ApprovalRow, status: ApprovalRow["status"]): Promise<ApprovalRow> {
  const released = await settleHeldMail(tx, actor, approval.id, status === "approved");
  if (!released || status !== "approved") return approval;
  const [spent] = await tx.update(approvals).set({ consumedAt: sql`clock_timestamp()` }).where(eq(approvals.id, approval.id)).returning();
  return spent!;
}
