import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import type { HandoffRow } from "../../../db/schema";
import { jsonValue } from "../../../db/row-json";
import { announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { drainDue } from "../../platform/jobs/due";
import { scheduleWork } from "../../platform/jobs/schedule";

/** Work kinds (lib/composition/job-kinds.ts): a timer at a claim's expiry, and one at a handoff's deadline. */
export const HANDOFF_CLAIM_EXPIRY_KIND = "handoff.claim-expire";
export const HANDOFF_EXPIRY_KIND = "handoff.expire";

/** Live claims, due when they lapse. */
export const claimedHandoffsSource = () =>
  sql`select id, workspace_id, null::text as key, claim_expires_at as due_at from handoffs where status = 'claimed'`;

/** Unfinished handoffs with a deadline, due at it. */
export const deadlineHandoffsSource = () =>
  sql`select id, workspace_id, null::text as key, expires_at as due_at from handoffs where status in ('pending', 'claimed') and expires_at is not null`;

/** After the transaction commits: wake the timers this handoff's state needs (claim lapse, deadline). */
export async function scheduleHandoffTimers(h: Pick<HandoffRow, "id" | "workspaceId" | "status" | "claimExpiresAt" | "expiresAt">): Promise<void> {
  await Promise.all([
    h.status === "claimed" && h.claimExpiresAt
      ? scheduleWork(HANDOFF_CLAIM_EXPIRY_KIND, [{ id: h.id, workspaceId: h.workspaceId, dueAt: h.claimExpiresAt }])
      : undefined,
    (h.status === "pending" || h.status === "claimed") && h.expiresAt
      ? scheduleWork(HANDOFF_EXPIRY_KIND, [{ id: h.id, workspaceId: h.workspaceId, dueAt: h.expiresAt }])
      : undefined,
  ]);
}

/**
 * One unit of work for either timer: records what the clock decided for one handoff (expired,
 * claim lapsed → pending again or dead) in one statement (agentdraft_settle_handoff); a no-op
 * when a heartbeat, completion or another run came first. Returns whether it changed anything.
 */
export async function settleHandoff(handoffId: string): Promise<boolean> {
  const q = await queryable();
  type Settled = { handoff: { workspace_id: string }; deliveries: OutboxDelivery[] };
  const { rows } = await q.execute<{ out: Settled | string | null }>(sql`select agentdraft_settle_handoff(${handoffId}) as out`);
  const out = jsonValue<Settled | null>(rows[0]?.out ?? null);
  if (!out) return false;
  await announceOutbox(out.handoff.workspace_id, out.deliveries);
  return true;
}

/** Settles every lapsed claim and passed deadline now (tests and the CLI; in the server each is its own timer). */
export async function settleHandoffs(): Promise<number> {
  return (await drainDue(deadlineHandoffsSource, settleHandoff)) + (await drainDue(claimedHandoffsSource, settleHandoff));
}
