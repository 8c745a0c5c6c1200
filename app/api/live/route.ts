import { currentMember } from "@/lib/auth/current-member";
import { EVENT_TYPES, type EventType } from "@/lib/events/emit-event";
import { openEventStream } from "@/lib/events/event-stream";
import { parsePosition, resumeFrom } from "@/lib/events/read-events";
import { problemResponse } from "@/lib/api/problem";
import { newRequestId } from "@/lib/api/request-ids";
import { AppError } from "@/lib/errors";

export const maxDuration = 300;
export const dynamic = "force-dynamic";

/**
 * GET /api/live?types=approval.requested,approval.resolved — for the web app's open pages: the
 * signed-in member's workspace events from the outbox (Server-Sent Events), so a page refreshes
 * itself when something it shows changed. Members read everything in their workspace.
 */
export async function GET(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const m = await currentMember();
    if (!m) throw new AppError("unauthorized", "Sign in to follow live changes.");
    const asked = (new URL(req.url).searchParams.get("types") ?? "").split(",").filter(Boolean);
    const types = (asked.length ? EVENT_TYPES.filter((t) => asked.includes(t)) : [...EVENT_TYPES]) as EventType[];
    if (types.length === 0) throw new AppError("validation_failed", "types: none of these is an event type.");
    const lastEventId = req.headers.get("last-event-id");
    const stream = await openEventStream({
      keyId: null,
      filter: { workspaceId: m.workspace.id, agentId: null, types },
      // A page cannot act on a refusal (EventSource would stop): a cursor past the head starts at it.
      after: lastEventId ? await resumeFrom(m.workspace.id, parsePosition(lastEventId), "Last-Event-ID", { clamp: true }) : null,
      signal: req.signal,
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store, no-transform", "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
