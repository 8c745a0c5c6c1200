import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { createCalendarOp, listCalendarsOp } from "@/lib/domains/calendars/operations";
import { createCalendar, listCalendars } from "@/lib/domains/calendars/calendars";
import { serializeCalendar } from "@/lib/domains/calendars/serialize";

// POST /api/v1/calendars — create a calendar
export const POST = withApiKey(createCalendarOp, async ({ actor, body }) => created(serializeCalendar(await createCalendar(actor, body))));

// GET /api/v1/calendars — list calendars
export const GET = withApiKey(listCalendarsOp, async ({ key, query }) => {
  const { items, hasMore } = await listCalendars(key.workspaceId, query);
  return list(items.map(serializeCalendar), hasMore);
});
