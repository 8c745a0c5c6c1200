import { sql } from "drizzle-orm";
import { effect } from "../../../db/effect";
import { calendarEvents, holds, type CalendarEventRow, type HoldRow } from "../../../db/schema";
import { rowFromJson } from "../../../db/row-json";
import { env } from "../../platform/config/env";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { scheduleExportWork } from "../../platform/events/export-outbox";
import { cancelHoldExpiry, scheduleHoldExpiry } from "./expire-holds";
import { assertLive } from "./assert-live";
import type { Conflict } from "./conflicts";
import { resolveTtl } from "./ttl";

type Json = Record<string, unknown>;
type Changed =
  | { hold: Json; events?: Json[]; exports?: { id: string; workspace_id: string; link_id: string | null; next_attempt_at: string }[]; deliveries: OutboxDelivery[]; changed: boolean }
  | { error: { code: "not_found" | "forbidden" | "hold_preempted" | "hold_expired" | "hold_not_active"; hold?: Json } | { code: "hold_conflict"; conflicts: Conflict[] } | { code: "hold_awaiting_approval"; approval_id: string } | { code: "event_not_active"; event_id: string } };

/**
 * Extends, commits or releases a hold in one statement (agentdraft_change_hold, db/migrations):
 * the actor must own it (its agent, or a workspace-wide key; another agent's hold is not found); extend and commit queue on the
 * calendars' locks like placements; the hold, its events, Google exports, the outbox event and
 * the audit entry are written together, and the locks end with the statement.
 */
export async function changeHold(
  actor: Actor,
  holdId: string,
  action: "extend" | "commit" | "release",
  ttlSeconds?: number,
): Promise<{ hold: HoldRow; events: CalendarEventRow[] }> {
  const ttl = ttlSeconds === undefined ? null : resolveTtl(ttlSeconds);
  const { HOLD_TTL_MIN_SECONDS: min, HOLD_TTL_MAX_SECONDS: max } = env();
  const out = await effect<Changed>(sql`
    select agentdraft_change_hold(${JSON.stringify(actorJson(actor))}::jsonb, ${holdId}, ${action}, ${ttl}::int, ${min}::int, ${max}::int) as out`);
  if ("error" in out) {
    const e = out.error;
    // Another agent's hold, to an agent-bound key, is not found: a 403 would confirm it exists.
    if (e.code === "not_found" || e.code === "forbidden") throw notFound("hold", holdId);
    if (e.code === "hold_conflict") {
      const source = e.conflicts.some((c) => c.type === "external_busy" && c.source === "microsoft") ? "Outlook" : "Google";
      throw new AppError("hold_conflict", `Since the hold was placed, a linked ${source} calendar became busy in this time: it cannot be committed.`, { conflicts: e.conflicts });
    }
    if (e.code === "hold_awaiting_approval") {
      throw new AppError("hold_awaiting_approval", `Hold ${holdId} waits for approval ${e.approval_id}: approving it commits the hold.`, { approval_id: e.approval_id });
    }
    if (e.code === "event_not_active") {
      // A re-booking (issue #32) whose event was cancelled or re-booked by another hold meanwhile.
      throw new AppError("conflict", `Event ${e.event_id}, which this hold re-books, is no longer committed (cancelled, or re-booked by another hold): it cannot be committed.`, { event_id: e.event_id });
    }
    assertLive(rowFromJson(holds, e.hold!), false);
    throw new Error(`unexpected answer from agentdraft_change_hold: ${e.code}`);
  }
  const hold = rowFromJson(holds, out.hold);
  const events = (out.events ?? []).map((e) => rowFromJson(calendarEvents, e));
  if (out.changed) {
    // Announced before the answer: on a serverless platform nothing runs after it.
    await Promise.all([
      announceOutbox(actor.workspaceId, out.deliveries),
      action === "extend" ? scheduleHoldExpiry(hold, { extended: true }) : cancelHoldExpiry([holdId]),
      scheduleExportWork((out.exports ?? []).map((x) => ({ id: x.id, workspaceId: x.workspace_id, key: x.link_id, dueAt: new Date(x.next_attempt_at) }))),
    ]);
  }
  return { hold, events };
}
