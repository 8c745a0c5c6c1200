import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { listEventsOp } from "@/lib/domains/calendars/operations";
import { listEvents } from "@/lib/domains/calendars/events";
import { serializeCalendarEvent } from "@/lib/domains/calendars/serialize";

// GET /api/v1/calendars/{id}/events — committed events, newest first
export const GET = withApiKey(listEventsOp, async ({ key, params, query }) => {
  const { items, hasMore } = await listEvents(key, params.id!, query);
  return list(items.map((r) => serializeCalendarEvent(r.event, r.reconciliation)), hasMore);
});
