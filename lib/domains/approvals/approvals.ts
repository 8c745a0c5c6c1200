import { and, desc, eq, lt, lte, sql, type SQL } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { approvals, type ApprovalRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { page, type Pagination } from "../../platform/api/pagination";
import { drainDue } from "../../platform/jobs/due";
import { matchPolicy } from "./policies";
import { actorTaint } from "./actor-taint";
import { resolveApproval } from "./resolve-approval";
import { effectiveApprovalStatus, serializeApprovals } from "./serialize";
import { announceResolved, waitForAnnouncement } from "./waiters";

/** An approval the actor may see: an agent-bound key sees only its own agent's. */
async function findApproval(actor: Actor, id: string): Promise<ApprovalRow> {
  const q = await queryable();
  const [row] = await q.select().from(approvals).where(and(eq(approvals.id, id), eq(approvals.workspaceId, actor.workspaceId)));
  if (!row || (actor.type === "key" && actor.agentId && row.agentId !== actor.agentId)) throw notFound("approval", id);
  return row;
}

/** With `waitSeconds`, returns as soon as it is decided (or expires), or after that long. */
export async function getApproval(actor: Actor, id: string, waitSeconds = 0) {
  const deadline = Date.now() + waitSeconds * 1000;
  let row = await findApproval(actor, id);
  while (effectiveApprovalStatus(row) === "pending" && Date.now() < deadline) {
    // Woken at once by a decision in this process; other instances are seen within a second.
    await waitForAnnouncement(id, Math.min(1000, deadline - Date.now(), Math.max(0, row.expiresAt.getTime() - Date.now()) + 10));
    row = await findApproval(actor, id);
  }
  return (await serializeApprovals(await queryable(), [row]))[0]!;
}

export async function listApprovals(actor: Actor, f: Pagination & { status?: ApprovalRow["status"] }) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(approvals.workspaceId, actor.workspaceId)];
  if (actor.type === "key" && actor.agentId) where.push(eq(approvals.agentId, actor.agentId));
  if (f.status === "pending") where.push(and(eq(approvals.status, "pending"), sql`${approvals.expiresAt} > clock_timestamp()`));
  else if (f.status === "expired") where.push(sql`(${approvals.status} = 'expired' or (${approvals.status} = 'pending' and ${approvals.expiresAt} <= clock_timestamp()))`);
  else if (f.status) where.push(eq(approvals.status, f.status));
  if (f.starting_after) where.push(lt(approvals.id, f.starting_after));
  const rows = await q.select().from(approvals).where(and(...where)).orderBy(desc(approvals.id)).limit(f.limit + 1);
  const { items, hasMore } = page(rows, f.limit);
  return { items: await serializeApprovals(q, items), hasMore };
}

/** The requesting agent (or a workspace-wide key) withdraws a pending approval. */
export async function cancelApproval(actor: Actor & { type: "key" }, id: string) {
  const visible = await findApproval(actor, id);
  const row = await transaction(async (tx) => {
    const [locked] = await tx.select().from(approvals).where(eq(approvals.id, visible.id)).for("update");
    if (locked!.status === "cancelled") return locked!;
    if (effectiveApprovalStatus(locked!) !== "pending") {
      throw new AppError("conflict", `This approval is already ${effectiveApprovalStatus(locked!)}.`, { approval_status: effectiveApprovalStatus(locked!) });
    }
    return resolveApproval(tx, actor, locked!, "cancelled");
  });
  announceResolved(id);
  return (await serializeApprovals(await queryable(), [row]))[0]!;
}

/** Tells an agent whether an action needs approval under the workspace's policies. */
export async function checkApproval(actor: Actor & { type: "key" }, input: { action_class: string; amount?: number; agent_id?: string }) {
  if (actor.agentId && input.agent_id && input.agent_id !== actor.agentId) throw notFound("agent", input.agent_id);
  const taint = await actorTaint(actor);
  const policy = await matchPolicy(actor.workspaceId, input.action_class, input.agent_id ?? actor.agentId, input.amount, taint !== null);
  return {
    object: "approval_check" as const,
    required: policy !== null,
    policy: policy ? { id: policy.id, name: policy.name, required_approvals: policy.requiredApprovals, expires_in_seconds: policy.expiresInSeconds } : null,
  };
}

/** The work kind that expires one approval (lib/composition/job-kinds.ts): a timer at `expires_at`. */
export const APPROVAL_EXPIRY_KIND = "approval.expire";

/** Pending approvals, due at their expiry, for the work registry. */
export const pendingApprovalsSource = () =>
  sql`select id, workspace_id, null::text as key, expires_at as due_at from approvals where status = 'pending'`;

/** One unit of work: marks one pending approval past its expiry as expired (with a receipt and approval.resolved). */
export async function expireApproval(approvalId: string): Promise<boolean> {
  const done = await transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(approvals)
      .where(and(eq(approvals.id, approvalId), eq(approvals.status, "pending"), lte(approvals.expiresAt, sql`clock_timestamp()`)))
      .for("update", { skipLocked: true });
    if (!locked) return false;
    await resolveApproval(tx, { type: "system", workspaceId: locked.workspaceId, job: "approval-expiry" }, locked, "expired");
    return true;
  });
  if (done) announceResolved(approvalId);
  return done;
}

/** Expires every approval past its expiry now (tests and the CLI; in the server each approval is its own timer). */
export const expireApprovals = (): Promise<number> => drainDue(pendingApprovalsSource, expireApproval);
