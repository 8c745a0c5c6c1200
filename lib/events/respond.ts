import type { AuthenticatedKey } from "../api/authenticate";
import { AppError } from "../errors";
import { EVENT_TYPES } from "./emit-event";
import { EVENT_SCOPES, visibleEventTypes } from "./event-scopes";
import { openEventStream } from "./event-stream";
import { parsePosition } from "./read-events";
import type { StreamEventsQuery } from "./schemas";

/** GET /v1/events: the key's filter and resume point checked before a stream slot is taken. */
export async function respondWithEventStream(req: Request, key: AuthenticatedKey, query: StreamEventsQuery): Promise<Response> {
  const types = visibleEventTypes(key.scopes, query.types);
  if (types.length === 0) {
    const needed = [...new Set((query.types ?? EVENT_TYPES).map((t) => EVENT_SCOPES[t]))].join(" or ");
    throw new AppError("insufficient_scope", `This API key's scopes allow none of the asked event types (it needs ${needed}).`, { required_scope: needed });
  }
  const header = req.headers.get("last-event-id");
  const after = header ? parsePosition(header) : query.after ? parsePosition(query.after, "after") : null;
  const stream = await openEventStream({
    keyId: key.id,
    filter: { workspaceId: key.workspaceId, agentId: key.agentId, types, since: query.since ? new Date(query.since) : undefined },
    after,
    signal: req.signal,
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store, no-transform", "x-accel-buffering": "no" },
  });
}
