import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { listEventsOp } from "@/lib/calendars/operations";
import { listEvents } from "@/lib/calendars/events";
import { serializeCalendarEvent } from "@/lib/calendars/serialize";

// GET /api/v1/calendars/{id}/events — committed events, newest first
export const GET = withApiKey(listEventsOp, async ({ key, params, query }) => {
  const { items, hasMore } = await listEvents(key, params.id!, query);
  return list(items.map(serializeCalendarEvent), hasMore);
});
