import type { AuthenticatedKey } from "../../platform/api/authenticate";
import { env } from "../../platform/config/env";
import { AppError } from "../../platform/errors";
import { EVENT_TYPES, type EventType } from "../../platform/events/emit-event";
import { EVENT_SCOPES, visibleEventTypes } from "./event-scopes";
import { formatPosition, parsePosition, readEvents, resumeFrom, type StreamFilter } from "./read-events";
import { watchEvents } from "../../platform/events/wake";
import { messagesInEvents, recordReadsBy } from "../taint";

/** The stream filter of a key: the types its scopes allow (403 when none), its agent's events only when agent-bound. */
export function keyStreamFilter(key: AuthenticatedKey, wanted?: readonly EventType[], since?: Date): StreamFilter {
  const types = visibleEventTypes(key.scopes, wanted);
  if (types.length === 0) {
    const needed = [...new Set((wanted ?? EVENT_TYPES).map((t) => EVENT_SCOPES[t]))].join(" or ");
    throw new AppError("insufficient_scope", `This API key's scopes allow none of the asked event types (it needs ${needed}).`, { required_scope: needed });
  }
  return { workspaceId: key.workspaceId, agentId: key.agentId, types, since };
}

/**
 * Long-polls the event stream once: the events after `after` (none given: after now) as soon as
 * there are any, or none after `waitSeconds`; and `next`, the position to pass next time.
 */
export async function waitForEvents(key: AuthenticatedKey, o: { after?: string; types?: EventType[]; waitSeconds: number; limit: number }) {
  const filter = keyStreamFilter(key, o.types);
  let position = o.after ? await resumeFrom(key.workspaceId, parsePosition(o.after, "after"), "after") : (await readEvents(filter, null)).next;
  const deadline = Date.now() + o.waitSeconds * 1000;
  const commits = watchEvents(key.workspaceId);
  try {
    for (;;) {
      const { events, next, more } = await readEvents(filter, position, o.limit);
      position = next;
      const left = deadline - Date.now();
      if (!events.length && more && left > 0) continue; // a backlog left to seal: read on at once
      if (events.length || left <= 0) {
        const actor = { type: "key" as const, workspaceId: key.workspaceId, keyId: key.id, agentId: key.agentId };
        await recordReadsBy(actor, key.agentId ?? key.id, messagesInEvents(events.map((e) => e.payload)), "events");
        return { object: "list" as const, data: events.map((e) => ({ ...e.payload, position: e.position })), next: formatPosition(position) };
      }
      await commits.wait(Math.min(env().EVENTS_POLL_INTERVAL_MS, left));
    }
  } finally {
    commits.close();
  }
}
