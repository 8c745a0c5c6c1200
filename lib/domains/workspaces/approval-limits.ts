import { eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { workspaces, type WorkspaceRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";

export const approvalLimitsInput = z.object({
  max_pending_approvals_per_agent: z.coerce.number().int().min(1).max(1000).describe("the most approvals one agent (or workspace-wide key) may have pending at once"),
});

/**
 * Sets how many approvals one agent may have pending at once (SPEC §5): beyond it, asking for
 * another answers 429 too_many_pending_approvals. People only (the web app, the CLI): an agent
 * cannot raise the bound on how much it may ask of people.
 */
export async function setApprovalLimits(actor: Actor & { type: "member" | "operator" }, given: z.input<typeof approvalLimitsInput>): Promise<WorkspaceRow> {
  const { max_pending_approvals_per_agent: max } = approvalLimitsInput.parse(given);
  return transaction(async (tx) => {
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, actor.workspaceId)).for("update");
    if (!before) throw notFound("workspace", actor.workspaceId);
    if (before.maxPendingApprovalsPerAgent === max) return before;
    const [row] = await tx.update(workspaces).set({ maxPendingApprovalsPerAgent: max }).where(eq(workspaces.id, actor.workspaceId)).returning();
    await appendAudit(tx, [
      { actor, action: "workspace.approval_limits_changed", resource: { type: "workspace", id: actor.workspaceId }, summary: { from: before.maxPendingApprovalsPerAgent, to: max } },
    ]);
    return row!;
  });
}
