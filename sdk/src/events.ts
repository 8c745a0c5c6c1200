import type { components } from "./schema.js";
import { AgentDraftError, toAgentDraftError } from "./errors.js";

/** One event from GET /v1/events: the webhook body, and its place in the stream. */
export type AgentDraftEvent = components["schemas"]["StreamedEvent"] & {
  /** The SSE id: store it, and pass it as `lastEventId` to resume right after this event. */
  position: string;
};

export type EventsOptions = {
  /** Resume after this position (an event's `position`); default: from now on. */
  lastEventId?: string;
  /** Only these event types (default: every type the key's scopes allow). */
  types?: readonly AgentDraftEvent["type"][];
  /** With no lastEventId: start with events created at or after this time. */
  since?: Date | string;
  /** Abort to end the iteration (a `break` in `for await` ends it too). */
  signal?: AbortSignal;
};

type Transport = { url: string; headers: Record<string, string>; fetch: (request: Request) => Promise<Response> };

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

/**
 * The workspace's events, live, as an async iterator: reads the Server-Sent Events of
 * GET /v1/events and reconnects with Last-Event-ID whenever the connection ends (the server
 * closes each one after a few minutes; networks drop), so every event arrives once, in order.
 * Throws an AgentDraftError on a refusal that retrying cannot mend (401, 403, 400).
 */
export async function* streamEvents(transport: Transport, options: EventsOptions = {}): AsyncGenerator<AgentDraftEvent, void, undefined> {
  let lastEventId = options.lastEventId;
  let retryMs = 1_000;
  let failures = 0;
  const query = new URLSearchParams();
  if (options.types?.length) query.set("types", options.types.join(","));
  if (options.since) query.set("since", typeof options.since === "string" ? options.since : options.since.toISOString());
  while (!options.signal?.aborted) {
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const headers = { ...transport.headers, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) };
      const qs = lastEventId ? query.toString().replace(/(^|&)since=[^&]*/, "") : query.toString();
      let res: Response;
      try {
        res = await transport.fetch(new Request(`${transport.url}${qs ? `?${qs}` : ""}`, { headers, signal: abort.signal }));
      } catch {
        if (options.signal?.aborted) return;
        await pause(backoff(++failures), options.signal);
        continue;
      }
      if (!res.ok || !res.body) {
        const problem = await res.json().catch(() => undefined);
        const error = toAgentDraftError(problem, res);
        if (!RETRYABLE.has(res.status)) throw error;
        const retryAfter = Number(res.headers.get("retry-after"));
        await pause(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 60) * 1000 : backoff(++failures), options.signal);
        continue;
      }
      failures = 0;
      try {
        for await (const block of sseBlocks(res.body)) {
          if (block.retry !== undefined) retryMs = block.retry;
          if (block.id !== undefined) lastEventId = block.id;
          if (block.data !== undefined) yield { ...(JSON.parse(block.data) as components["schemas"]["StreamedEvent"]), position: block.id ?? "" };
        }
      } catch (err) {
        if (options.signal?.aborted) return;
        if (err instanceof AgentDraftError) throw err;
        // The connection broke mid-stream: resume after the last event received.
      }
      await pause(retryMs, options.signal);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      abort.abort();
    }
  }
}

type Block = { id?: string; data?: string; retry?: number };

/** The blocks of a text/event-stream body (the SSE format of the HTML standard). */
async function* sseBlocks(body: ReadableStream<Uint8Array>): AsyncGenerator<Block> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let block: Block = {};
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (block.id !== undefined || block.data !== undefined || block.retry !== undefined) yield block;
          block = {};
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id" && !value.includes("\0")) block.id = value;
        else if (field === "data") block.data = block.data === undefined ? value : `${block.data}\n${value}`;
        else if (field === "retry" && /^\d+$/.test(value)) block.retry = Number(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

const backoff = (failures: number) => Math.min(30_000, 500 * 2 ** Math.min(failures, 6)) * (0.75 + Math.random() / 2);

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
