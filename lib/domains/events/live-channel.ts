import { EVENT_TYPES, type EventType } from "../../platform/events/emit-event";
import { openEventStream } from "./event-stream";
import { formatPosition, parsePosition, resumeFrom, streamHead } from "./read-events";
import { AppError } from "../../platform/errors";

/**
 * The web app's live channel (GET /api/live) for a signed-in member of one session: the
 * workspace's events as Server-Sent Events, so an open page refreshes itself. Takes one of the
 * member's bounded slots (LIVE_STREAMS_PER_MEMBER, 429 beyond); the stream ends within seconds of
 * the member's removal or the session's end (sign-out everywhere deletes the session). `?after=`
 * (the stream position a page read before its data, `livePosition`) starts it where the page is.
 */
export async function openLiveChannel(req: Request, who: { memberId: string; workspaceId: string; sessionToken: string | undefined }): Promise<ReadableStream<Uint8Array>> {
  if (!who.sessionToken) throw new AppError("unauthorized", "Sign in to follow live changes.");
  const params = new URL(req.url).searchParams;
  const asked = (params.get("types") ?? "").split(",").filter(Boolean);
  const types = (asked.length ? EVENT_TYPES.filter((t) => asked.includes(t)) : [...EVENT_TYPES]) as EventType[];
  if (types.length === 0) throw new AppError("validation_failed", "types: none of these is an event type.");
  // Where to start: the browser's Last-Event-ID when it reconnects, else the position the page was
  // rendered at (?after=, read before the page's data): what commits between the render and the
  // connection is streamed too, not lost until the next change.
  const lastEventId = req.headers.get("last-event-id");
  const field = lastEventId ? "Last-Event-ID" : "after";
  const from = lastEventId ?? params.get("after");
  return openEventStream({
    keyId: null,
    member: { memberId: who.memberId, sessionToken: who.sessionToken },
    filter: { workspaceId: who.workspaceId, agentId: null, types },
    // A page cannot act on a refusal (EventSource would stop): a cursor past the head starts at it.
    after: from ? await resumeFrom(who.workspaceId, parsePosition(from, field), field, { clamp: true }) : null,
    signal: req.signal,
  });
}

/**
 * The position a live page passes to /api/live (`?after=`): read before the page reads what it
 * shows, so every change the page does not show commits after it and is streamed.
 */
export async function livePosition(workspaceId: string): Promise<string> {
  return formatPosition(await streamHead(workspaceId));
}
