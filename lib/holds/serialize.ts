import { inArray } from "drizzle-orm";
import type { Queryable } from "../../db/client";
import { calendarEvents, type HoldRow } from "../../db/schema";
import { effectiveStatus } from "./live";

export function serializeHold(h: HoldRow, eventIds: string[] = [], now = new Date()) {
  return {
    id: h.id,
    object: "hold" as const,
    calendar_ids: h.calendarIds,
    agent_id: h.agentId,
    start_time: h.startTime.toISOString(),
    end_time: h.endTime.toISOString(),
    priority: h.priority,
    status: effectiveStatus(h, now),
    hold_ttl_seconds: h.ttlSeconds,
    expires_at: h.expiresAt.toISOString(),
    metadata: h.metadata,
    preempted_by: h.preemptedBy ? { hold_id: h.preemptedBy, priority: h.preemptedByPriority ?? 0 } : null,
    approval_id: h.approvalId,
    event_ids: eventIds,
    created_at: h.createdAt.toISOString(),
    ended_at: h.endedAt?.toISOString() ?? (effectiveStatus(h, now) === "expired" ? h.expiresAt.toISOString() : null),
  };
}

/** Serializes holds with the ids of the events their commits created (one query for all). */
export async function serializeHolds(q: Queryable, rows: HoldRow[]) {
  const committed = rows.filter((h) => h.status === "committed").map((h) => h.id);
  const events = committed.length
    ? await q.select({ id: calendarEvents.id, holdId: calendarEvents.holdId }).from(calendarEvents).where(inArray(calendarEvents.holdId, committed))
    : [];
  const byHold = new Map<string, string[]>();
  for (const e of events) byHold.set(e.holdId!, [...(byHold.get(e.holdId!) ?? []), e.id]);
  const now = new Date();
  return rows.map((h) => serializeHold(h, (byHold.get(h.id) ?? []).sort(), now));
}
