import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { createCalendarOp, listCalendarsOp } from "@/lib/calendars/operations";
import { createCalendar, listCalendars } from "@/lib/calendars/calendars";
import { serializeCalendar } from "@/lib/calendars/serialize";

// POST /api/v1/calendars — create a calendar
export const POST = withApiKey(createCalendarOp, async ({ actor, body }) => created(serializeCalendar(await createCalendar(actor, body))));

// GET /api/v1/calendars — list calendars
export const GET = withApiKey(listCalendarsOp, async ({ key, query }) => {
  const { items, hasMore } = await listCalendars(key.workspaceId, query);
  return list(items.map(serializeCalendar), hasMore);
});
