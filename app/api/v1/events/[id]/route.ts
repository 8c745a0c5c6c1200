import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { cancelEventOp } from "@/lib/domains/calendars/operations";
import { cancelEvent } from "@/lib/domains/calendars/events";
import { serializeCalendarEvent } from "@/lib/domains/calendars/serialize";

// DELETE /api/v1/events/{id} — cancel a committed event
export const DELETE = withApiKey(cancelEventOp, async ({ actor, params }) => json(serializeCalendarEvent(await cancelEvent(actor, params.id!))));
