import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getCalendarOp } from "@/lib/domains/calendars/operations";
import { getCalendar } from "@/lib/domains/calendars/calendars";
import { serializeCalendar } from "@/lib/domains/calendars/serialize";

// GET /api/v1/calendars/{id} — retrieve a calendar
export const GET = withApiKey(getCalendarOp, async ({ key, params }) => json(serializeCalendar(await getCalendar(key.workspaceId, params.id!))));
