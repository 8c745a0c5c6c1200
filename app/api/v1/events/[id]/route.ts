import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { cancelEventOp } from "@/lib/calendars/operations";
import { cancelEvent } from "@/lib/calendars/events";
import { serializeCalendarEvent } from "@/lib/calendars/serialize";

// DELETE /api/v1/events/{id} — cancel a committed event
export const DELETE = withApiKey(cancelEventOp, async ({ actor, params }) => json(serializeCalendarEvent(await cancelEvent(actor, params.id!))));
