import { and, eq, sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { approvalDecisions, approvals, members, type ApprovalRow } from "../../../db/schema";
import { isUniqueViolation } from "../../../db/errors";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { resolveApproval, withTrace } from "./resolve-approval";
import { announceResolved } from "./waiters";

export const DECIDING_ROLES = ["owner", "admin", "approver"] as const;

/** How the member proved, at the moment of deciding, that it was them: a fresh user-verified passkey assertion. */
export type DecisionPresence = { passkeyCredentialId: string };

/**
 * Records a signed-in member's vote. Only members with the approver, admin or owner role;
 * never an API key (there is no API route for it, and the actor type says so). A denial needs
 * a note and ends it at once; approvals end it when `required_approvals` distinct members agree.
 *
 * The web app never calls this directly: it decides through `decideWithPasskey`
 * (decide-with-passkey.ts), which verifies a fresh passkey assertion bound to this approval and
 * verdict and passes `presence`, named in the vote and its audit entry. (Tests set up votes here.)
 */
export async function decideApproval(
  actor: Actor & { type: "member" },
  approvalId: string,
  decision: "approve" | "deny",
  note?: string | null,
  presence?: DecisionPresence,
): Promise<ApprovalRow> {
  const trimmed = note?.trim() || null;
  if (decision === "deny" && !trimmed) {
    throw new AppError("validation_failed", "Say why when you deny: a note is required.", { errors: [{ field: "note", message: "required to deny" }] });
  }
  if (trimmed && trimmed.length > 2000) {
    throw new AppError("validation_failed", "The note is too long (2000 characters at most).", { errors: [{ field: "note", message: "at most 2000 characters" }] });
  }
  const result = await transaction(async (tx) => {
    // Shared lock: a role change or removal (which locks the member for update) waits for this vote, then withdraws it.
    const [member] = await tx.select().from(members).where(and(eq(members.id, actor.memberId), eq(members.workspaceId, actor.workspaceId))).for("share");
    if (!member || !(DECIDING_ROLES as readonly string[]).includes(member.role)) {
      throw new AppError("forbidden", "Only members with the approver, admin or owner role can decide approvals.");
    }
    const [row] = await tx
      .select({ approval: approvals, live: sql<boolean>`(${approvals.status} = 'pending' and ${approvals.expiresAt} > clock_timestamp())` })
      .from(approvals)
      .where(and(eq(approvals.id, approvalId), eq(approvals.workspaceId, actor.workspaceId)))
      .for("update");
    if (!row) throw notFound("approval", approvalId);
    if (!row.live) {
      const status = row.approval.status === "pending" ? "expired" : row.approval.status;
      throw new AppError("conflict", `This approval is already ${status}.`, { approval_status: status });
    }
    try {
      await tx.insert(approvalDecisions).values({ id: newId("approvalDecision"), approvalId, workspaceId: actor.workspaceId, memberId: actor.memberId, decision, note: trimmed, passkeyCredentialId: presence?.passkeyCredentialId ?? null });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError("conflict", "You have already decided on this approval; another member must add theirs.");
      throw err;
    }
    const decided = { actor: withTrace(actor, row.approval.traceId), action: `approval.${decision === "approve" ? "approved_by_member" : "denied_by_member"}`, resource: { type: "approval", id: approvalId }, agentId: row.approval.agentId, summary: { note: trimmed, ...(presence ? { passkey_verified: true, passkey_credential_id: presence.passkeyCredentialId } : {}) } };
    if (decision === "deny") return resolveApproval(tx, actor, row.approval, "denied", [decided]);
    const [{ n }] = (await tx.execute<{ n: number }>(sql`select count(*)::int as n from approval_decisions where approval_id = ${approvalId} and decision = 'approve'`)).rows as [{ n: number }];
    if (Number(n) >= row.approval.requiredApprovals) return resolveApproval(tx, actor, row.approval, "approved", [decided]);
    await appendAudit(tx, [decided]);
    return row.approval;
  });
  if (result.status !== "pending") announceResolved(result.id);
  return result;
}
