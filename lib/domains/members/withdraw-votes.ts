import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { approvalDecisions } from "../../../db/schema";

/**
 * Deletes the member's decisions on pending approvals, each approval locked first (as a vote
 * locks it), when they leave or lose the role that decides: a departed, demoted or compromised
 * approver no longer counts towards a quorum. Decisions on resolved approvals stay as history.
 * Returns the approvals' ids, for the audit entry of the change.
 */
export async function withdrawPendingVotes(tx: Transaction, memberId: string): Promise<string[]> {
  const { rows } = await tx.execute<{ id: string }>(
    sql`select a.id from approvals a join approval_decisions d on d.approval_id = a.id
        where d.member_id = ${memberId} and a.status = 'pending' order by a.id for update of a`,
  );
  const ids = rows.map((r) => r.id);
  if (ids.length) await tx.delete(approvalDecisions).where(and(eq(approvalDecisions.memberId, memberId), inArray(approvalDecisions.approvalId, ids)));
  return ids;
}
