import { env } from "../../platform/config/env";
import { readEvents, formatPosition, type StreamFilter, type StreamPosition } from "./read-events";
import { closeStreamSlot, openLiveSlot, openStreamSlot, renewStreamSlot, streamSlotAllowed } from "./stream-slots";
import { watchEvents } from "../../platform/events/wake";
import { messagesInEvents, recordReadsBy } from "../taint";
import type { Actor } from "../../platform/actor";

const keyActor = (o: EventStreamOptions): Actor => ({ type: "key", workspaceId: o.filter.workspaceId, keyId: o.keyId!, agentId: o.filter.agentId });

export type EventStreamOptions = {
  /** The API key whose bounded slots the stream takes; null for a signed-in member's live page. */
  keyId: string | null;
  /** For a member's live page: the member and session whose bounded slots it takes (ended by removal or sign-out). */
  member?: { memberId: string; sessionToken: string };
  filter: StreamFilter;
  /** Where to resume (Last-Event-ID); null: from now on (or from `filter.since`). */
  after: StreamPosition | null;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
};

/** How soon an EventSource reconnects after the server ends a connection. */
const RETRY_MS = 1_000;
/** How often an open stream checks that its key is not revoked (its member not removed, its session not ended): it ends within this. */
export const STREAM_ACCESS_CHECK_MS = 2_000;

/**
 * GET /v1/events as a Server-Sent Events body: one `id`/`event`/`data` block per event, a
 * heartbeat comment (carrying the position, so a resume skips what the key does not see),
 * and a clean end after EVENTS_STREAM_MAX_SECONDS: the client reconnects with Last-Event-ID.
 * Takes a slot of the key's bounded streams first (429 when none is free).
 */
export async function openEventStream(o: EventStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const e = env();
  const ttl = e.EVENTS_HEARTBEAT_SECONDS * 3;
  const slot = o.keyId
    ? await openStreamSlot(o.keyId, e.EVENTS_STREAMS_PER_KEY, ttl)
    : o.member
      ? await openLiveSlot(o.member, e.LIVE_STREAMS_PER_MEMBER, ttl)
      : null;
  // "From now" is fixed before the answer starts: whatever commits after the client sees it is streamed.
  let start: StreamPosition | null;
  try {
    start = o.after ?? (o.filter.since ? null : (await readEvents(o.filter, null)).next);
  } catch (err) {
    if (slot) await closeStreamSlot(slot);
    throw err;
  }
  const stop = new AbortController();
  o.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  const chunks = sseChunks({ ...o, after: start }, slot, stop.signal, ttl);
  const encoder = new TextEncoder();
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (cancelled) return; // the client went away meanwhile
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (err) {
        console.error("[events] stream failed:", err);
        if (!cancelled) controller.close();
      }
    },
    async cancel() {
      cancelled = true;
      stop.abort();
      await chunks.return(undefined);
    },
  }, { highWaterMark: 0 });
}

async function* sseChunks(o: EventStreamOptions, slot: string | null, signal: AbortSignal, ttl: number): AsyncGenerator<string> {
  const e = env();
  const endAt = Date.now() + e.EVENTS_STREAM_MAX_SECONDS * 1000;
  let heartbeatAt = Date.now() + e.EVENTS_HEARTBEAT_SECONDS * 1000;
  let checkAt = Date.now() + STREAM_ACCESS_CHECK_MS;
  let position = o.after;
  let sentPosition = position ? formatPosition(position) : "";
  const commits = watchEvents(o.filter.workspaceId);
  try {
    yield `retry: ${RETRY_MS}\n: connected\n${sentPosition ? `id: ${sentPosition}\n` : ""}\n`;
    let revoked = false;
    while (!signal.aborted && Date.now() < endAt) {
      if (slot && Date.now() >= checkAt) {
        // Revoked, removed or signed out: the stream ends within seconds, not at its next heartbeat.
        if (!(await streamSlotAllowed(slot))) {
          revoked = true;
          break;
        }
        checkAt = Date.now() + STREAM_ACCESS_CHECK_MS;
      }
      const { events, next, more } = await readEvents(o.filter, position);
      position = next;
      if (events.length) {
        // A key that is handed untrusted mail is tainted by it before it sees it (SPEC §13).
        if (o.keyId) await recordReadsBy(keyActor(o), o.filter.agentId ?? o.keyId, messagesInEvents(events.map((e) => e.payload)), "events");
        yield events.map((ev) => `id: ${ev.position}\nevent: ${ev.payload.type}\ndata: ${JSON.stringify(ev.payload)}\n\n`).join("");
        sentPosition = events[events.length - 1]!.position;
      }
      if (more) continue; // cut short, or a backlog left to seal: read on at once
      if (Date.now() >= heartbeatAt) {
        if (slot && !(await renewStreamSlot(slot, ttl))) {
          revoked = true;
          break;
        }
        checkAt = Date.now() + STREAM_ACCESS_CHECK_MS;
        const at = formatPosition(position);
        yield `: heartbeat\n${at !== sentPosition ? `id: ${at}\n` : ""}\n`;
        sentPosition = at;
        heartbeatAt = Date.now() + e.EVENTS_HEARTBEAT_SECONDS * 1000;
      }
      const wait = Math.min(e.EVENTS_POLL_INTERVAL_MS, heartbeatAt - Date.now(), endAt - Date.now(), slot ? checkAt - Date.now() : Infinity);
      if (wait > 0) await commits.wait(wait, signal);
    }
    if (revoked) yield `: access ended (key revoked, member removed or signed out)\n\n`;
    else if (!signal.aborted) yield `: closing after ${e.EVENTS_STREAM_MAX_SECONDS} s; reconnect with Last-Event-ID\n${position && formatPosition(position) !== sentPosition ? `id: ${formatPosition(position)}\n` : ""}\n`;
  } finally {
    commits.close();
    if (slot) await closeStreamSlot(slot).catch((err) => console.error("[events] could not free a stream slot:", err));
  }
}
