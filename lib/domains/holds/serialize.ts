import type { HoldRow } from "../../../db/schema";
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
    rebooks_event_id: h.rebooksEventId,
    event_ids: eventIds,
    created_at: h.createdAt.toISOString(),
    ended_at: h.endedAt?.toISOString() ?? (effectiveStatus(h, now) === "expired" ? h.expiresAt.toISOString() : null),
  };
}
