import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Inngest's event API that takes `delayMs` to answer each send (`--slow-inngest`):
 * with background work on Inngest, a write must answer as fast as without it. Counts the events it took.
 */
export async function startSlowEventApi(delayMs: number): Promise<{ env: Record<string, string>; events: () => number; close: () => Promise<void> }> {
  let events = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      setTimeout(() => {
        const parsed = JSON.parse(body || "[]") as unknown;
        const n = Array.isArray(parsed) ? parsed.length : 1;
        events += n;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: Array.from({ length: n }, (_, i) => String(i)), status: 200 }));
      }, delayMs).unref();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    env: { JOB_RUNNER: "inngest", INNGEST_EVENT_KEY: "bench-event-key", INNGEST_SIGNING_KEY: `signkey-bench-${"0f".repeat(32)}`, INNGEST_BASE_URL: url },
    events: () => events,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
