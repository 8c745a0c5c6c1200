import http from "node:http";
import type { AddressInfo } from "node:net";

export type TeamsPost = { hook: string; body: { type?: string; attachments?: { contentType: string; content: Record<string, unknown> }[] } };
export type DiscordMessage = { id: string; webhook: string; body: Record<string, unknown>; edits: Record<string, unknown>[] };

/**
 * Local stand-ins for incoming webhooks (loopback only). Microsoft Teams (Workflows / connector):
 * POST /teams/{hook} with a message card, 202 Accepted. Discord: POST /api/webhooks/{id}/{token}
 * (with `?wait=true` it answers 200 with the created message, else 204), PATCH
 * /api/webhooks/{id}/{token}/messages/{message_id} edits it (404 code 10008 for an unknown one),
 * 429 with Retry-After and a JSON `retry_after` when told to.
 */
export async function startFakeChatWebhooks() {
  const teams: TeamsPost[] = [];
  const discord: DiscordMessage[] = [];
  const queued: { status: number; retryAfter?: number }[] = [];
  const hangingPrefixes = new Set<string>();
  const held: http.ServerResponse[] = [];
  let seq = 1_100_000_000_000_000_000n;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      if ([...hangingPrefixes].some((p) => url.pathname.startsWith(p))) return void held.push(res);
      const json = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
        body === undefined ? res.writeHead(status, headers).end() : res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
      const next = queued.shift();
      if (next?.status === 429) return json(429, { message: "You are being rate limited.", retry_after: next.retryAfter ?? 1, global: false }, { "retry-after": String(next.retryAfter ?? 1) });
      if (next) return json(next.status, { message: "error", code: 0 });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        return json(400, { message: "Cannot send an empty message", code: 50006 });
      }
      const teamsHook = url.pathname.match(/^\/teams\/([\w-]+)$/);
      if (req.method === "POST" && teamsHook) {
        if (body.type !== "message" || !Array.isArray(body.attachments)) return json(400, { error: "Bad payload" });
        teams.push({ hook: teamsHook[1]!, body: body as TeamsPost["body"] });
        return json(202);
      }
      const post = url.pathname.match(/^\/api\/webhooks\/(\d+)\/([\w-]+)$/);
      if (req.method === "POST" && post) {
        if (!body.content && !(Array.isArray(body.embeds) && body.embeds.length)) return json(400, { message: "Cannot send an empty message", code: 50006 });
        const message = { id: String(++seq), webhook: post[1]!, body, edits: [] };
        discord.push(message);
        return url.searchParams.get("wait") === "true" ? json(200, { id: message.id, type: 0, channel_id: "1200", webhook_id: post[1], ...body }) : json(204);
      }
      const edit = url.pathname.match(/^\/api\/webhooks\/(\d+)\/([\w-]+)\/messages\/(\d+)$/);
      if (req.method === "PATCH" && edit) {
        const message = discord.find((m) => m.id === edit[3] && m.webhook === edit[1]);
        if (!message) return json(404, { message: "Unknown Message", code: 10008 });
        message.edits.push(body);
        message.body = { ...message.body, ...body };
        return json(200, { id: message.id, ...message.body });
      }
      return json(404, { message: "404: Not Found", code: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    teamsUrl: (hook = "hook1") => `${url}/teams/${hook}`,
    discordUrl: (id = "123456789", token = "tok-en_1") => `${url}/api/webhooks/${id}/${token}`,
    teams,
    discord,
    failNext: (status: number, times = 1) => queued.push(...Array.from({ length: times }, () => ({ status }))),
    rateLimitNext: (retryAfter: number) => queued.push({ status: 429, retryAfter }),
    /** Requests to paths under `prefix` wait unanswered until closed. */
    hang: (prefix: string) => hangingPrefixes.add(prefix),
    close: () => {
      for (const r of held.splice(0)) r.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type FakeChatWebhooks = Awaited<ReturnType<typeof startFakeChatWebhooks>>;
