import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Queryable, Transaction } from "../../../db/client";
import { calendarEvents, calendars, holds, type ApprovalRow } from "../../../db/schema";
import { queryable } from "../../../db/transaction";
import { jsonValue } from "../../../db/row-json";
import { env } from "../../platform/config/env";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { scheduleExportWork } from "../../platform/events/export-outbox";
import { effectiveStatus } from "../holds";
import { cancelHoldExpiry, scheduleHoldExpiry } from "../holds";
import { idField } from "../../platform/api/id-field";

export const boundHoldsInput = {
  hold_ids: z
    .array(idField("hold"))
    .max(20)
    .refine((ids) => new Set(ids).size === ids.length, "each hold once")
    .optional()
    .describe("live holds to keep for this approval (SPEC §12): while it is pending they are kept up to the hold TTL cap (HOLD_TTL_MAX_SECONDS) from binding, never past its expiry, unless a person extends them, are committed (or kept) when it is approved, released otherwise"),
  on_approve: z.enum(["commit", "hold"]).optional().describe("commit (the default): approving commits the bound holds in the same transaction; hold: they are kept with a fresh TTL"),
};

export const boundHoldSchema = z.object({
  hold_id: z.string(),
  status: z.string().describe("the hold's status now: held, committed, released, expired or preempted"),
  calendar_ids: z.array(z.string()),
  start_time: z.iso.datetime(),
  end_time: z.iso.datetime(),
  priority: z.number().int(),
  expires_at: z.iso.datetime(),
  preempted_by: z.object({ hold_id: z.string(), priority: z.number().int() }).nullable(),
  event_ids: z.array(z.string()),
});

/**
 * Binds the holds to the approval being created, as the last statement of its transaction
 * (agentdraft_bind_holds: under the calendars' locks, so the calendars are locked only until
 * the commit that follows). A bound hold is kept up to the hold TTL cap from now, never past the
 * approval's expiry: only a person extends it further (extendBoundHolds). Refuses, rolling the
 * approval back, a hold that is not the caller's, not live, or bound to another pending approval.
 */
export async function bindHolds(tx: Transaction, actor: Actor & { type: "key" }, approvalId: string, holdIds: string[]): Promise<void> {
  if (holdIds.length === 0) return;
  const sorted = [...holdIds].sort();
  const { rows } = await tx.execute<{ out: unknown }>(
    sql`select agentdraft_bind_holds(${JSON.stringify(actorJson(actor))}::jsonb, ${approvalId}, ${sql.param(sorted)}::text[], ${env().HOLD_TTL_MAX_SECONDS}::int) as out`,
  );
  const out = jsonValue<{ holds?: { id: string; workspace_id: string; expires_at: string }[]; error?: { code: string; hold_id: string } }>(rows[0]!.out);
  if (!out.error) {
    // Their time may have grown (to the hold TTL cap): the expiry timers follow, after the commit.
    void Promise.all((out.holds ?? []).map((h) => scheduleHoldExpiry({ id: h.id, workspaceId: h.workspace_id, expiresAt: new Date(h.expires_at) })));
    return;
  }
  const { code, hold_id } = out.error;
  const field = [{ field: "hold_ids", message: `${hold_id}: ${code.replace(/_/g, " ")}` }];
  if (code === "not_found") throw notFound("hold", hold_id);
  if (code === "hold_not_live") throw new AppError("hold_not_active", `Hold ${hold_id} is not live (expired, preempted, committed or released): only live holds can wait for an approval.`, { hold_id, errors: field });
  throw new AppError("conflict", `Hold ${hold_id} already waits for another pending approval.`, { hold_id, errors: field });
}

type Settled = {
  holds: { hold_id: string; outcome: string; preempted_by: unknown; event_ids?: string[] }[];
  deliveries: OutboxDelivery[];
  exports: { id: string; workspace_id: string; link_id: string | null; next_attempt_at: string }[];
  kept: { id: string; workspace_id: string; expires_at: string }[];
  settled: string[];
};

/**
 * Settles the approval's bound holds as it resolves (agentdraft_settle_bound_holds), the last
 * statement of the resolving transaction: approved → committed or kept with a fresh TTL,
 * otherwise released. Their outcomes join the approval.resolved event; the work they cause
 * (webhook deliveries, Google exports, expiry timers) is announced after the commit.
 */
export async function settleBoundHolds(tx: Transaction, actor: Actor, approval: ApprovalRow, status: string, eventId: string): Promise<Settled["holds"]> {
  if (approval.holdIds.length === 0) return [];
  const { HOLD_TTL_MIN_SECONDS: min, HOLD_TTL_MAX_SECONDS: max } = env();
  const { rows } = await tx.execute<{ out: unknown }>(sql`
    select agentdraft_settle_bound_holds(${JSON.stringify(actorJson(actor))}::jsonb, ${approval.id}, ${status}, ${eventId}, ${min}::int, ${max}::int) as out`);
  const out = jsonValue<Settled>(rows[0]!.out);
  const ws = approval.workspaceId;
  void announceOutbox(ws, out.deliveries);
  void cancelHoldExpiry(out.settled);
  void Promise.all(out.kept.map((k) => scheduleHoldExpiry({ id: k.id, workspaceId: k.workspace_id, expiresAt: new Date(k.expires_at) }, { extended: true })));
  void scheduleExportWork(out.exports.map((x) => ({ id: x.id, workspaceId: x.workspace_id, key: x.link_id, dueAt: new Date(x.next_attempt_at) })));
  return out.holds;
}

/** The approvals' bound holds as they are now, for the approval's JSON and page. */
export async function boundHoldsOf(q: Queryable, rows: Pick<ApprovalRow, "id" | "holdIds">[]) {
  const ids = [...new Set(rows.flatMap((r) => r.holdIds))];
  const byApproval = new Map<string, z.output<typeof boundHoldSchema>[]>();
  if (ids.length === 0) return byApproval;
  const [found, events] = await Promise.all([
    q.select().from(holds).where(inArray(holds.id, ids)),
    q.select({ id: calendarEvents.id, holdId: calendarEvents.holdId }).from(calendarEvents).where(inArray(calendarEvents.holdId, ids)),
  ]);
  const now = new Date();
  for (const r of rows) {
    byApproval.set(
      r.id,
      r.holdIds
        .map((id) => found.find((h) => h.id === id))
        .filter((h) => h !== undefined)
        .map((h) => ({
          hold_id: h.id,
          status: effectiveStatus(h, now),
          calendar_ids: h.calendarIds,
          start_time: h.startTime.toISOString(),
          end_time: h.endTime.toISOString(),
          priority: h.priority,
          expires_at: h.expiresAt.toISOString(),
          preempted_by: h.preemptedBy ? { hold_id: h.preemptedBy, priority: h.preemptedByPriority ?? 0 } : null,
          event_ids: events.filter((e) => e.holdId === h.id).map((e) => e.id).sort(),
        })),
    );
  }
  return byApproval;
}

/** Names of a workspace's calendars, for showing bound holds to people. */
export async function calendarNames(workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const q = await queryable();
  const rows = await q.select({ id: calendars.id, name: calendars.name }).from(calendars).where(and(eq(calendars.workspaceId, workspaceId), inArray(calendars.id, ids)));
  return new Map(rows.map((c) => [c.id, c.name]));
}
