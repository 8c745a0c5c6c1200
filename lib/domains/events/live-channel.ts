import { EVENT_TYPES, type EventType } from "../../platform/events/emit-event";
import { openEventStream } from "./event-stream";
import { parsePosition, resumeFrom } from "./read-events";
import { AppError } from "../../platform/errors";

/**
 * The web app's live channel (GET /api/live) for a signed-in member of one session: the
 * workspace's events as Server-Sent Events, so an open page refreshes itself. Takes one of the
 * member's bounded slots (LIVE_STREAMS_PER_MEMBER, 429 beyond); the stream ends within seconds of
 * the member's removal or the session's end (sign-out everywhere deletes the session).
 */
export async function openLiveChannel(req: Request, who: { memberId: string; workspaceId: string; sessionToken: string | undefined }): Promise<ReadableStream<Uint8Array>> {
  if (!who.sessionToken) throw new AppError("unauthorized", "Sign in to follow live changes.");
  const asked = (new URL(req.url).searchParams.get("types") ?? "").split(",").filter(Boolean);
  const types = (asked.length ? EVENT_TYPES.filter((t) => asked.includes(t)) : [...EVENT_TYPES]) as EventType[];
  if (types.length === 0) throw new AppError("validation_failed", "types: none of these is an event type.");
  const lastEventId = req.headers.get("last-event-id");
  return openEventStream({
    keyId: null,
    member: { memberId: who.memberId, sessionToken: who.sessionToken },
    filter: { workspaceId: who.workspaceId, agentId: null, types },
    // A page cannot act on a refusal (EventSource would stop): a cursor past the head starts at it.
    after: lastEventId ? await resumeFrom(who.workspaceId, parsePosition(lastEventId), "Last-Event-ID", { clamp: true }) : null,
    signal: req.signal,
  });
}
