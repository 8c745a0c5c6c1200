// No imports: the web app's client components read this list too.
/** Every event type a webhook endpoint can subscribe to (SPEC §6). */
export const EVENT_TYPES = [
  "email.received",
  "email.sent",
  "email.bounced",
  "hold.created",
  "hold.preempted",
  "hold.expired",
  "hold.released",
  "hold.committed",
  "event.cancelled",
  "approval.requested",
  "approval.resolved",
  "calendar.synced",
  "calendar.sync_failed",
  "handoff.received",
  "handoff.completed",
  "handoff.dead",
  "handoff.expired",
  "approval.consumed",
  "lease.acquired",
  "lease.released",
  "lease.expired",
  "message.claimed",
  "message.released",
  "message.completed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
