import { acceptNotification } from "@/lib/domains/calendar-sync/google/channels";
import { problemResponse } from "@/lib/platform/api/problem";
import { newRequestId } from "@/lib/platform/api/request-ids";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// POST /api/google/notifications — Google Calendar push notifications (events.watch channels)
export const POST = gatedRoute(async (req: Request) => {
  const requestId = newRequestId();
  const h = req.headers;
  try {
    const result = await acceptNotification({
      channelId: h.get("x-goog-channel-id"),
      token: h.get("x-goog-channel-token"),
      resourceId: h.get("x-goog-resource-id"),
      resourceState: h.get("x-goog-resource-state"),
    });
    return Response.json({ received: true, sync_scheduled: result.scheduled }, { headers: { "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
});
