import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../db/client";
import { calendarEvents, externalBusyIntervals, holds, type HoldRow } from "../../db/schema";
import { isLive, overlaps } from "./live";
import type { Actor } from "../actor";

export type Conflict =
  | { type: "event"; id: string; calendar_id: string; start_time: string; end_time: string }
  | { type: "external_busy"; id: string; calendar_id: string; source: "google"; start_time: string; end_time: string }
  | { type: "hold"; id: string; calendar_ids: string[]; agent_id: string | null; priority: number; start_time: string; end_time: string; expires_at: string };

/**
 * What stands in the way of [start, end) on these calendars: confirmed events, busy time
 * imported from linked Google calendars, and live holds (the caller splits those by
 * priority). Call with the calendars locked: imported busy time is written under the same locks.
 */
export async function findConflicts(
  tx: Transaction,
  workspaceId: string,
  calendarIds: string[],
  start: Date,
  end: Date,
  excludeHoldId?: string,
): Promise<{ events: Conflict[]; external: Conflict[]; liveHolds: HoldRow[] }> {
  const events = await tx
    .select()
    .from(calendarEvents)
    .where(
      and(
        inArray(calendarEvents.calendarId, calendarIds),
        eq(calendarEvents.status, "confirmed"),
        sql`${calendarEvents.span} && tstzrange(${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz, '[)')`,
      ),
    );
  const external = await tx
    .select()
    .from(externalBusyIntervals)
    .where(
      and(
        inArray(externalBusyIntervals.calendarId, calendarIds),
        sql`${externalBusyIntervals.span} && tstzrange(${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz, '[)')`,
      ),
    );
  const liveHolds = await tx
    .select()
    .from(holds)
    .where(
      and(
        eq(holds.workspaceId, workspaceId),
        sql`${holds.calendarIds} && ${sql.param(calendarIds)}::text[]`,
        isLive,
        overlaps(start, end),
        excludeHoldId ? sql`${holds.id} <> ${excludeHoldId}` : undefined,
      ),
    );
  return {
    events: events.map((e) => ({
      type: "event" as const,
      id: e.id,
      calendar_id: e.calendarId,
      start_time: e.startTime.toISOString(),
      end_time: e.endTime.toISOString(),
    })),
    external: external.map((b) => ({
      type: "external_busy" as const,
      id: b.id,
      calendar_id: b.calendarId,
      source: "google" as const,
      start_time: b.startTime.toISOString(),
      end_time: b.endTime.toISOString(),
    })),
    liveHolds,
  };
}

/** A live hold in the way; which agent holds it is told only to workspace-wide callers and to that agent itself. */
export const holdConflict = (h: HoldRow, viewer: Actor): Conflict => ({
  type: "hold",
  id: h.id,
  calendar_ids: h.calendarIds,
  agent_id: viewer.type === "key" && viewer.agentId && viewer.agentId !== h.agentId ? null : h.agentId,
  priority: h.priority,
  start_time: h.startTime.toISOString(),
  end_time: h.endTime.toISOString(),
  expires_at: h.expiresAt.toISOString(),
});
