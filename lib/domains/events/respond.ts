import type { AuthenticatedKey } from "../../platform/api/authenticate";
import { openEventStream } from "./event-stream";
import { parsePosition, resumeFrom } from "./read-events";
import type { StreamEventsQuery } from "./schemas";
import { keyStreamFilter } from "./wait-for-events";

/** GET /v1/events: the key's filter and resume point checked before a stream slot is taken. */
export async function respondWithEventStream(req: Request, key: AuthenticatedKey, query: StreamEventsQuery): Promise<Response> {
  const filter = keyStreamFilter(key, query.types, query.since ? new Date(query.since) : undefined);
  const header = req.headers.get("last-event-id");
  const field = header ? "Last-Event-ID" : "after";
  const given = header ?? query.after;
  const after = given ? await resumeFrom(key.workspaceId, parsePosition(given, field), field) : null;
  const stream = await openEventStream({ keyId: key.id, filter, after, signal: req.signal });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store, no-transform", "x-accel-buffering": "no" },
  });
}
