import { and, eq, sql } from "drizzle-orm";
import { queryable, transaction } from "../../db/transaction";
import { approvals, type ApprovalRow } from "../../db/schema";
import { AppError, notFound } from "../errors";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { emitEvent } from "../events/emit-event";
import { actionHash } from "./receipts";
import { withTrace } from "./resolve-approval";
import { serializeApprovals } from "./serialize";

/**
 * Spends an approved approval once (SPEC §13): one conditional UPDATE that succeeds only for
 * an approved, unexpired, unspent approval of this workspace (and of this agent, for an
 * agent-bound key) whose action hashes to the approved one. Fifty racing consumers: one wins.
 * The audit entry and `approval.consumed` commit with it.
 */
export async function consumeApproval(actor: Actor & { type: "key" }, id: string, action: Record<string, unknown> | undefined) {
  const hash = action === undefined ? null : actionHash(action);
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
          sql`not exists (select 1 from messages m where m.approval_id = ${approvals.id})`,
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
      { actor: traced, action: "approval.consumed", resource: { type: "approval", id: spent.id }, agentId: spent.agentId, summary: { action_sha256: spent.actionSha256, action_class: spent.actionClass } },
    ]);
    return spent;
  });
  if (!row) throw await whyNotConsumable(actor, id, hash);
  return (await serializeApprovals(await queryable(), [row]))[0]!;
}

/** Says which condition failed (read after the UPDATE matched nothing), as a 404 or a 409 with its own code. */
async function whyNotConsumable(actor: Actor & { type: "key" }, id: string, hash: string | null): Promise<AppError> {
  const q = await queryable();
  const [row] = await q
    .select({ approval: approvals, live: sql<boolean>`${approvals.expiresAt} > clock_timestamp()`, gated: sql<boolean>`exists (select 1 from messages m where m.approval_id = ${approvals.id})` })
    .from(approvals)
    .where(and(eq(approvals.id, id), eq(approvals.workspaceId, actor.workspaceId)));
  if (!row || (actor.agentId && row.approval.agentId !== actor.agentId)) return notFound("approval", id);
  return consumeRefusal(row.approval, Boolean(row.live), Boolean(row.gated), hash);
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
