import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "../sdk/src/index";

export type WebhookEvent = { id: string; type: string; trace_id?: string; data: Record<string, any> };

/**
 * The webhook side of a scripted agent: a receiver on loopback that verifies every delivery
 * with the SDK's verifyWebhook (refusing what does not verify) and lets the agent wait for the
 * events it cares about.
 */
export async function startWebhookInbox() {
  const events: WebhookEvent[] = [];
  const waiters: { match: (e: WebhookEvent) => boolean; resolve: (e: WebhookEvent) => void }[] = [];
  let secret: string | null = null;
  let refused = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let event: WebhookEvent;
      try {
        if (!secret) throw new Error("no secret yet");
        event = (await verifyWebhook(body, req.headers as Record<string, string>, secret)) as unknown as WebhookEvent;
      } catch {
        refused++;
        res.writeHead(401).end();
        return;
      }
      res.writeHead(204).end();
      if (events.some((e) => e.id === event.id)) return; // at-least-once: a redelivery is not news
      events.push(event);
      for (const w of waiters.filter((w) => w.match(event))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agentdraft-webhooks`,
    events,
    get refused() {
      return refused;
    },
    useSecret(value: string) {
      secret = value;
    },
    /** The first event (already received or yet to come) that matches. */
    waitFor(type: string, match: (e: WebhookEvent) => boolean = () => true, timeoutMs = 30_000): Promise<WebhookEvent> {
      const test = (e: WebhookEvent) => e.type === type && match(e);
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type} webhook within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ match: test, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
