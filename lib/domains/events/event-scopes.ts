import type { ApiKeyScope } from "../../../db/schema";
import { EVENT_TYPES, type EventType } from "../../platform/events/emit-event";

/**
 * The scope a key needs to receive each event type from GET /v1/events (and the MCP tool that
 * waits for events). One table: a new event type does not type-check until it is placed here.
 */
export const EVENT_SCOPES: Record<EventType, ApiKeyScope> = {
  "email.received": "mail",
  "email.sent": "mail",
  "email.bounced": "mail",
  "hold.created": "calendar",
  "hold.preempted": "calendar",
  "hold.expired": "calendar",
  "hold.released": "calendar",
  "hold.committed": "calendar",
  "event.cancelled": "calendar",
  "event.moved_externally": "calendar",
  "event.cancelled_externally": "calendar",
  "event.conflicted": "calendar",
  "calendar.synced": "calendar",
  "calendar.sync_failed": "calendar",
  "calendar.orphan_found": "calendar",
  "approval.requested": "approvals",
  "approval.resolved": "approvals",
  "approval.consumed": "approvals",
  "handoff.received": "handoffs",
  "handoff.completed": "handoffs",
  "handoff.dead": "handoffs",
  "handoff.expired": "handoffs",
  "lease.acquired": "leases",
  "lease.released": "leases",
  "lease.expired": "leases",
  "message.claimed": "mail",
  "message.released": "mail",
  "message.completed": "mail",
  "domain.verified": "mail",
  "domain.failed": "mail",
  "draft.created": "mail",
  "draft.sent": "mail",
  "draft.returned": "mail",
};

/** The event types a key with these scopes (null: all) may receive, narrowed to `wanted` when given. */
export function visibleEventTypes(scopes: readonly ApiKeyScope[] | null, wanted?: readonly EventType[]): EventType[] {
  return EVENT_TYPES.filter((t) => (!scopes || scopes.includes(EVENT_SCOPES[t])) && (!wanted || wanted.includes(t)));
}
