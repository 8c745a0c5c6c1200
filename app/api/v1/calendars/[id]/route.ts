import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getCalendarOp } from "@/lib/calendars/operations";
import { getCalendar } from "@/lib/calendars/calendars";
import { serializeCalendar } from "@/lib/calendars/serialize";

// GET /api/v1/calendars/{id} — retrieve a calendar
export const GET = withApiKey(getCalendarOp, async ({ key, params }) => json(serializeCalendar(await getCalendar(key.workspaceId, params.id!))));
