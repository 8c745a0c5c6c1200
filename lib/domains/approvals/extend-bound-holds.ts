import { and, eq, gt, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { approvals, holds, type HoldRow, type MemberRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { scheduleHoldExpiry } from "../holds";

export const extendBoundHoldsInput = z.object({ approval_id: z.string().min(1).max(100) });

/**
 * A person keeps the live holds a pending approval waits for until the approval's own expiry
 * (SPEC §12). Binding keeps them only to the hold TTL cap, so an approval nobody decides does
 * not block time for its whole life; extending past it is a person's choice, audited per hold.
 * Approvers and above (those who may decide it). Under the calendars' locks, as placements.
 */
export async function extendBoundHolds(by: Pick<MemberRow, "id" | "workspaceId" | "role">, approvalId: string): Promise<HoldRow[]> {
  assertRole(by.role, "approver", "extend the holds an approval keeps");
  const actor = memberActor(by);
  const extended = await transaction(async (tx) => {
    const [a] = await tx.select().from(approvals).where(and(eq(approvals.id, approvalId), eq(approvals.workspaceId, by.workspaceId))).for("update");
    if (!a) throw notFound("approval", approvalId);
    if (a.status !== "pending" || a.expiresAt.getTime() <= Date.now()) {
      throw new AppError("conflict", `Approval ${approvalId} is ${a.status === "pending" ? "past its expiry" : a.status}: only a pending approval's holds can be extended.`);
    }
    await tx.execute(sql`select 1 from calendars where workspace_id = ${by.workspaceId}
      and id in (select unnest(h.calendar_ids) from holds h where h.approval_id = ${a.id} and h.workspace_id = ${by.workspaceId}) order by id for update`);
    const rows = await tx
      .update(holds)
      .set({ expiresAt: a.expiresAt })
      .where(and(eq(holds.approvalId, a.id), eq(holds.workspaceId, by.workspaceId), eq(holds.status, "held"), gt(holds.expiresAt, sql`clock_timestamp()`), lt(holds.expiresAt, a.expiresAt)))
      .returning();
    await appendAudit(
      tx,
      rows.map((h) => ({
        actor,
        action: "hold.extended",
        resource: { type: "hold", id: h.id },
        agentId: h.agentId,
        summary: { approval_id: a.id, expires_at: h.expiresAt.toISOString(), until: "approval_expiry" },
      })),
    );
    return rows;
  });
  await Promise.all(extended.map((h) => scheduleHoldExpiry(h)));
  return extended;
}
