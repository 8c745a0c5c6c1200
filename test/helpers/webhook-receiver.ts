import http from "node:http";
import { afterAll, beforeAll } from "vitest";
import type { AddressInfo } from "node:net";

export type Received = { headers: http.IncomingHttpHeaders; body: string; path: string };
type Reply = (r: Received) => { status: number; headers?: Record<string, string>; delayMs?: number; /** Answers only once this settles (a hanging endpoint the test releases). */ after?: Promise<unknown> };

/**
 * A webhook receiver on 127.0.0.1 for tests (loopback only): records every request and
 * answers with `reply` (200 by default). Change the answer with `receiver.reply = ...`.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const state = { reply: (() => ({ status: 200 })) as Reply };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const r = { headers: req.headers, body, path: req.url ?? "/" };
      received.push(r);
      const out = state.reply(r);
      const send = () => {
        if (!res.destroyed) res.writeHead(out.status, out.headers ?? {}).end("ok");
      };
      const answer = () => (out.delayMs ? void setTimeout(send, out.delayMs).unref() : send());
      if (out.after) void out.after.then(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    set reply(fn: Reply) {
      state.reply = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver for this test file's tests: started before them, closed after. */
export function receiverForTests() {
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  return {
    get url() {
      return receiver!.url;
    },
    get received() {
      return receiver!.received;
    },
  };
}
