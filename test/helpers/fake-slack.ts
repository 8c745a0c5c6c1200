import http from "node:http";
import type { AddressInfo } from "node:net";

export type SlackMessage = { channel: string; ts: string; text: string; blocks: unknown[]; updates: number; args: Record<string, unknown> };
export type SlackCall = { method: string; token: string | null; args: Record<string, unknown>; contentType: string };

/**
 * A local stand-in for Slack's Web API (loopback only), speaking its protocol for what
 * AgentDraft uses: POST {base}/{method} with a bearer token, arguments as a form
 * (application/x-www-form-urlencoded, objects JSON-encoded, as @slack/web-api sends them) or as
 * JSON; answers `{ ok: true, ... }` or `{ ok: false, error }` with HTTP 200, and 429 with
 * Retry-After when told to. Methods: auth.test, chat.postMessage, chat.update,
 * users.lookupByEmail. Point the real WebClient at `apiUrl` (SLACK_API_URL).
 */
export async function startFakeSlack(o: { tokens?: string[]; channels?: string[]; users?: Record<string, string>; port?: number } = {}) {
  const tokens = new Set(o.tokens ?? ["xoxb-test-token"]);
  const channels = new Set(o.channels ?? ["C0TEST0001"]);
  const users = new Map(Object.entries(o.users ?? {}).map(([email, id]) => [email.toLowerCase(), id]));
  const messages: SlackMessage[] = [];
  const calls: SlackCall[] = [];
  const queued: { status?: number; retryAfter?: number; error?: string; delayMs?: number }[] = [];
  let hanging = false;
  const held: http.ServerResponse[] = [];
  let seq = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const contentType = String(req.headers["content-type"] ?? "");
      const args = parseArgs(raw, contentType);
      const method = (req.url ?? "").replace(/^.*\/api\//, "").replace(/\?.*$/, "");
      const auth = String(req.headers.authorization ?? "");
      const token = auth.startsWith("Bearer ") ? auth.slice(7) : typeof args.token === "string" ? args.token : null;
      calls.push({ method, token, args, contentType });
      if (hanging) return void held.push(res);
      const json = (body: Record<string, unknown>, status = 200, headers: Record<string, string> = {}) =>
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
      const next = queued.shift();
      if (next?.status === 429) {
        const answer = () => json({ ok: false, error: "ratelimited" }, 429, { "retry-after": String(next.retryAfter ?? 1) });
        return void (next.delayMs ? setTimeout(answer, next.delayMs) : answer());
      }
      if (next?.status) return json({ ok: false, error: "fatal_error" }, next.status);
      if (next?.error) return json({ ok: false, error: next.error });
      if (!token) return json({ ok: false, error: "not_authed" });
      if (!tokens.has(token)) return json({ ok: false, error: "invalid_auth" });
      switch (method) {
        case "auth.test":
          return json({ ok: true, url: "https://agentdraft-test.slack.com/", team: "AgentDraft Test", user: "agentdraft", team_id: "T0TEST", user_id: "U0BOT", bot_id: "B0BOT" });
        case "users.lookupByEmail": {
          const id = users.get(String(args.email ?? "").toLowerCase());
          return id ? json({ ok: true, user: { id, profile: { email: args.email } } }) : json({ ok: false, error: "users_not_found" });
        }
        case "chat.postMessage": {
          const target = String(args.channel ?? "");
          const isUser = [...users.values()].includes(target);
          if (!channels.has(target) && !isUser) return json({ ok: false, error: "channel_not_found" });
          if (!args.text && !args.blocks) return json({ ok: false, error: "no_text" });
          const channel = isUser ? `D${target.slice(1)}` : target;
          const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`;
          const message = { channel, ts, text: String(args.text ?? ""), blocks: (args.blocks as unknown[]) ?? [], updates: 0, args };
          messages.push(message);
          return json({ ok: true, channel, ts, message: { type: "message", text: message.text, blocks: message.blocks, ts } });
        }
        case "chat.update": {
          const message = messages.find((m) => m.channel === args.channel && m.ts === args.ts);
          if (!message) return json({ ok: false, error: "message_not_found" });
          message.text = String(args.text ?? message.text);
          message.blocks = (args.blocks as unknown[]) ?? message.blocks;
          message.updates++;
          return json({ ok: true, channel: message.channel, ts: message.ts, text: message.text });
        }
        default:
          return json({ ok: false, error: "unknown_method" });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    /** The value for SLACK_API_URL. */
    apiUrl: `${url}/api/`,
    messages,
    calls,
    /** The next answers: a 429 with Retry-After (seconds, sent after `delayMs`), an HTTP error, or a Slack error code. */
    rateLimitNext: (retryAfter: number, times = 1, delayMs = 0) => queued.push(...Array.from({ length: times }, () => ({ status: 429, retryAfter, delayMs }))),
    failNext: (error: string, times = 1) => queued.push(...Array.from({ length: times }, () => ({ error }))),
    httpErrorNext: (status: number, times = 1) => queued.push(...Array.from({ length: times }, () => ({ status }))),
    /** Stops answering (requests wait) until `resume()`. */
    hang: () => void (hanging = true),
    resume: () => {
      hanging = false;
      for (const r of held.splice(0)) r.destroy();
    },
    addChannel: (id: string) => channels.add(id),
    addUser: (email: string, id: string) => users.set(email.toLowerCase(), id),
    messagesIn: (channel: string) => messages.filter((m) => m.channel === channel),
    close: () => {
      for (const r of held.splice(0)) r.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type FakeSlack = Awaited<ReturnType<typeof startFakeSlack>>;

/** Slack arguments as the Web API reads them: a form whose object values are JSON, or a JSON body. */
function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes("application/json")) {
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    if (k === "blocks" || k === "attachments" || k === "metadata") {
      try {
        out[k] = JSON.parse(v);
        continue;
      } catch {
        /* kept as text */
      }
    }
    out[k] = v;
  }
  return out;
}
