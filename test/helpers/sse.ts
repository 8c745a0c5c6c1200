/** One Server-Sent Events block as a client sees it. */
export type SseBlock = { id?: string; event?: string; data?: string; comments: string[] };

/** The blocks of an SSE response body, as they arrive (the last partial block is dropped). */
export async function* sseBlocks(body: ReadableStream<Uint8Array>): AsyncGenerator<SseBlock> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block: SseBlock = { comments: [] };
      for (const line of buffer.slice(0, end).split("\n")) {
        if (line.startsWith(":")) block.comments.push(line.slice(1).trim());
        else {
          const i = line.indexOf(":");
          const field = i < 0 ? line : line.slice(0, i);
          const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "id" || field === "event") block[field] = value;
          else if (field === "data") block.data = block.data === undefined ? value : `${block.data}\n${value}`;
        }
      }
      buffer = buffer.slice(end + 2);
      yield block;
    }
  }
}

/** Opens GET /api/v1/events; the caller aborts `signal` to disconnect. */
export async function openStream(baseUrl: string, key: string, o: { lastEventId?: string; query?: string; signal?: AbortSignal } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "text/event-stream" };
  if (o.lastEventId) headers["last-event-id"] = o.lastEventId;
  return fetch(`${baseUrl}/api/v1/events${o.query ? `?${o.query}` : ""}`, { headers, signal: o.signal });
}
