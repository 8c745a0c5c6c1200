import { paginationQuery } from "../../../platform/api/pagination";
import { availability } from "../../../domains/calendars/availability";
import { listCalendars } from "../../../domains/calendars/calendars";
import { listEvents } from "../../../domains/calendars/events";
import { listEventsQuery, timeRangeQuery } from "../../../domains/calendars/schemas";
import { serializeCalendar, serializeCalendarEvent } from "../../../domains/calendars/serialize";
import { commitHold } from "../../../domains/holds/commit-hold";
import { extendHold } from "../../../domains/holds/extend-hold";
import { getHold } from "../../../domains/holds/get-hold";
import { placeHold } from "../../../domains/holds/place-hold";
import { gateHold } from "../../../domains/approvals/hold-gate";
import { releaseHold } from "../../../domains/holds/release-hold";
import { extendHoldInput, placeMultiHoldInput } from "../../../domains/holds/schemas";
import { serializeHold } from "../../../domains/holds/serialize";
import { listOrphans, serializeOrphan } from "../../../domains/calendar-sync/orphans";
import { listOrphansQuery } from "../../../domains/calendar-sync/orphan-schemas";
import { READ_ONLY, approvalIdArg, defineTool, idArg, idempotencyKeyArg } from "../define-tool";

const scope = "calendar" as const;
const liveCodes = "Fails with hold_expired if its TTL passed, hold_preempted if a higher priority took the time, hold_not_active if already released or committed.";

export const listCalendarsTool = defineTool({
  name: "list_calendars",
  title: "List calendars",
  description: "List the workspace's bookable calendars (people, rooms, clusters), newest first.",
  scope,
  input: paginationQuery.shape,
  annotations: READ_ONLY,
  run: async ({ key }, args) => {
    const { items, hasMore } = await listCalendars(key.workspaceId, args);
    return { object: "list", data: items.map(serializeCalendar), has_more: hasMore };
  },
});

export const checkAvailabilityTool = defineTool({
  name: "check_availability",
  title: "Check availability",
  description:
    "Free and busy time of a calendar between from and to (at most 62 days). Busy slots are committed events and live holds; " +
    "a live hold's priority tells whether yours would preempt it.",
  scope,
  input: { calendar_id: idArg("cal_..."), ...timeRangeQuery.shape },
  annotations: READ_ONLY,
  run: async ({ key }, { calendar_id, ...range }) => {
    const { from, to } = timeRangeQuery.parse(range);
    return availability(key.workspaceId, calendar_id, new Date(from), new Date(to));
  },
});

export const listCalendarEventsTool = defineTool({
  name: "list_calendar_events",
  title: "List committed events",
  description:
    "List a calendar's committed events, newest first, each with its reconciliation: what a person changed in the linked Google or Outlook calendar " +
    "since the commit (moved_externally, cancelled_externally, conflicted), the provider's version beside AgentDraft's and what now overlaps it. " +
    'attention: "true" lists only the events needing attention. AgentDraft moves nothing back: decide, then book anew or cancel.',
  scope,
  input: { calendar_id: idArg("cal_..."), ...listEventsQuery.shape },
  annotations: READ_ONLY,
  run: async ({ key }, { calendar_id, ...args }) => {
    const { items, hasMore } = await listEvents(key, calendar_id, listEventsQuery.parse(args));
    return { object: "list", data: items.map((r) => serializeCalendarEvent(r.event, r.reconciliation)), has_more: hasMore };
  },
});

export const listCalendarOrphansTool = defineTool({
  name: "list_calendar_orphans",
  title: "List orphans in linked calendars",
  description:
    "List events in linked Google or Outlook calendars tagged as AgentDraft's that AgentDraft does not stand behind (orphans: a second copy of a " +
    "committed event, a tag naming no event exported there, a copy whose removal failed), newest first. status: open (default) lists those " +
    "waiting for a person; calendar_id narrows to one calendar. They are left in the person's calendar: tell a member, who dismisses one in the web app.",
  scope,
  input: listOrphansQuery.shape,
  annotations: READ_ONLY,
  run: async ({ key }, args) => {
    const { items, hasMore } = await listOrphans(key.workspaceId, listOrphansQuery.parse(args));
    return { object: "list", data: items.map(serializeOrphan), has_more: hasMore };
  },
});

export const placeHoldTool = defineTool({
  name: "place_hold",
  title: "Place a hold",
  description:
    "Tentatively hold time on one or more calendars (all or nothing) for hold_ttl_seconds. A committed event, busy time from a linked " +
    "Google calendar, or a live hold of equal or higher priority in the way fails with hold_conflict listing them; live holds of strictly lower priority are preempted. " +
    "Commit the hold to book the time, or release it. Intervals are half-open [start, end). " +
    "Once this agent has read untrusted mail (the server records what it reads) a workspace policy may answer approval_required with an approval opened for you: await it, then call again with the same hold and approval_id.",
  scope,
  input: { ...placeMultiHoldInput.shape, approval_id: approvalIdArg, idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: ({ approval_id: _a, ...body }) => ({ path: "/v1/holds", body, status: 201 }),
  run: async ({ actor }, { approval_id, ...args }) => {
    const input = placeMultiHoldInput.parse(args);
    return serializeHold((await gateHold(actor, input, approval_id ?? null, () => placeHold(actor, input, input.rebooks_event_id ?? null))).hold);
  },
});

export const getHoldTool = defineTool({
  name: "get_hold",
  title: "Get a hold",
  description: "Retrieve a hold: its status (held, committed, released, expired, preempted), expiry and events.",
  scope,
  input: { hold_id: idArg("hold_...") },
  annotations: READ_ONLY,
  run: ({ key }, { hold_id }) => getHold(key, hold_id),
});

export const extendHoldTool = defineTool({
  name: "extend_hold",
  title: "Extend a hold",
  description: `Heartbeat: keep a live hold for another TTL from now. ${liveCodes}`,
  scope,
  input: { hold_id: idArg("hold_..."), ...extendHoldInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: ({ hold_id, ...body }) => ({ path: `/v1/holds/${hold_id}/extend`, body }),
  run: async ({ actor }, { hold_id, hold_ttl_seconds }) => serializeHold(await extendHold(actor, hold_id, hold_ttl_seconds)),
});

export const commitHoldTool = defineTool({
  name: "commit_hold",
  title: "Commit a hold",
  description: `Turn a live hold into committed events (one per calendar), atomically: the time is booked. ${liveCodes}`,
  scope,
  input: { hold_id: idArg("hold_..."), idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  write: ({ hold_id }) => ({ path: `/v1/holds/${hold_id}/commit` }),
  run: async ({ actor }, { hold_id }) => {
    const { hold, events } = await commitHold(actor, hold_id);
    return serializeHold(hold, events.map((e) => e.id).sort());
  },
});

export const releaseHoldTool = defineTool({
  name: "release_hold",
  title: "Release a hold",
  description: `Give a live hold's time back. ${liveCodes}`,
  scope,
  input: { hold_id: idArg("hold_..."), idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: ({ hold_id }) => ({ path: `/v1/holds/${hold_id}/release` }),
  run: async ({ actor }, { hold_id }) => serializeHold(await releaseHold(actor, hold_id)),
});

export const CALENDAR_TOOLS = [
  listCalendarsTool,
  checkAvailabilityTool,
  listCalendarEventsTool,
  listCalendarOrphansTool,
  placeHoldTool,
  getHoldTool,
  extendHoldTool,
  commitHoldTool,
  releaseHoldTool,
];

