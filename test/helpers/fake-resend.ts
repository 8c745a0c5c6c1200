import http from "node:http";
import { createHmac, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** What the fake received on POST /emails, as Resend's API takes it (snake_case JSON). */
export type SentEmail = {
  id: string;
  idempotencyKey: string | null;
  body: { from: string; to: string | string[]; cc?: string | string[]; bcc?: string | string[]; subject: string; text?: string; html?: string; headers?: Record<string, string>; reply_to?: string | string[]; attachments?: { filename: string; content?: string; path?: string; content_type?: string; content_id?: string }[] };
};

/**
 * A received message the fake serves from GET /emails/receiving/{id}, with its raw MIME. `raw`
 * may be a generator of `rawBytes` bytes (served lazily, chunked, with no Content-Length: how a
 * large object streams), and `rawRedirect` answers the download with a 302 to that URL instead.
 */
export type ReceivedEmail = {
  id: string;
  raw: Buffer | null;
  to: string[];
  from: string;
  subject: string;
  text?: string | null;
  html?: string | null;
  headers?: Record<string, string>;
  rawStream?: { bytes: number };
  rawRedirect?: (downloadUrl: string) => string;
};

type Failure = { status: number; name: string; message: string };

/**
 * A local stand-in for Resend's HTTP API (loopback only), speaking its real protocol for what
 * AgentDraft uses: `POST /emails` (bearer auth, Resend's error JSON, Idempotency-Key replay),
 * `GET /emails/receiving/{id}` (metadata plus a `raw.download_url`) and the raw download.
 * Point the real `resend` client at `url` (its baseUrl). `failNext` queues error answers.
 */
/** Resend's limit on one email's attachments, after base64. */
export const RESEND_MAX_ATTACHMENT_BASE64_BYTES = 40 * 1024 * 1024;

/**
 * Attachments as Resend's API takes them: an array of `{ filename, content (base64) | path,
 * content_type?, content_id? }`, at most 40 MB of base64 in all. Returns why not, or null.
 */
function checkAttachments(list: unknown): string | null {
  if (list === undefined) return null;
  if (!Array.isArray(list)) return "`attachments` must be an array.";
  let total = 0;
  for (const [i, a] of list.entries()) {
    if (!a || typeof a !== "object") return `attachments[${i}] must be an object.`;
    const { filename, content, path, content_type } = a as Record<string, unknown>;
    if (typeof filename !== "string" || !filename) return `attachments[${i}].filename is required.`;
    if (content === undefined && path === undefined) return `attachments[${i}] needs \`content\` or \`path\`.`;
    if (content !== undefined) {
      if (typeof content !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(content) || content.length % 4 !== 0) return `attachments[${i}].content must be base64.`;
      total += content.length;
    }
    if (content_type !== undefined && typeof content_type !== "string") return `attachments[${i}].content_type must be a string.`;
  }
  if (total > RESEND_MAX_ATTACHMENT_BASE64_BYTES) return "Attachments exceed the 40MB limit after base64 encoding.";
  return null;
}

export async function startFakeResend(opts: { apiKey?: string; port?: number } = {}) {
  const apiKey = opts.apiKey ?? "re_test_key";
  const sent: SentEmail[] = [];
  /** The Idempotency-Key of every POST /emails that got this far (replays included). */
  const attempts: (string | null)[] = [];
  const byIdempotencyKey = new Map<string, { id: string; fingerprint: string }>();
  const received = new Map<string, ReceivedEmail>();
  const failures: Failure[] = [];
  /** Raw downloads as the CDN saw them: how many bytes it wrote for each before the client stopped reading. */
  const downloads: { id: string; host: string; bytesSent: number; closedEarly: boolean }[] = [];
  // Like CloudFront's signed URLs: the download needs no API key, only an unexpired signature over the path.
  const urlKey = randomUUID();
  const sign = (p: string, expires: number) => createHmac("sha256", urlKey).update(`${p}:${expires}`).digest("hex");

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const json = (status: number, value: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      const error = (status: number, name: string, message: string) => json(status, { statusCode: status, name, message });
      const url = new URL(req.url ?? "/", "http://fake");

      const raw = url.pathname.match(/^\/raw\/([^/]+)$/);
      if (req.method === "GET" && raw) {
        const expires = Number(url.searchParams.get("Expires"));
        if (url.searchParams.get("Signature") !== sign(url.pathname, expires) || expires * 1000 < Date.now()) {
          return res.writeHead(403, { "content-type": "text/xml" }).end("<Error><Code>AccessDenied</Code><Message>Access denied</Message></Error>");
        }
        const mail = received.get(raw[1]!);
        if (!mail || (!mail.raw && !mail.rawStream)) return res.writeHead(404, { "content-type": "text/xml" }).end("<Error><Code>NoSuchKey</Code></Error>");
        if (mail.rawRedirect && !url.searchParams.has("redirected")) {
          const to = new URL(mail.rawRedirect(`http://${req.headers.host}${req.url}`));
          to.searchParams.set("redirected", "1");
          return res.writeHead(302, { location: to.toString() }).end();
        }
        const log = { id: mail.id, host: String(req.headers.host), bytesSent: 0, closedEarly: false };
        downloads.push(log);
        if (mail.raw) {
          log.bytesSent = mail.raw.length;
          return res.writeHead(200, { "content-type": "message/rfc822", "content-length": String(mail.raw.length) }).end(mail.raw);
        }
        // Generated as it is read: a client that stops reading stops the server writing.
        res.writeHead(200, { "content-type": "message/rfc822" });
        res.write(`From: big@sender.example\r\nTo: ${mail.to.join(", ")}\r\nSubject: ${mail.subject}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, "x".repeat(75) + "\r\n");
        const pump = () => {
          while (log.bytesSent < mail.rawStream!.bytes) {
            log.bytesSent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.on("close", () => (log.closedEarly = log.bytesSent < mail.rawStream!.bytes));
        return pump();
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) return error(401, "missing_api_key", "Missing or invalid API key in the authorization header.");

      if (req.method === "POST" && url.pathname === "/emails") {
        const failure = failures.shift();
        if (failure) return error(failure.status, failure.name, failure.message);
        let payload: SentEmail["body"];
        try {
          payload = JSON.parse(body);
        } catch {
          return error(400, "invalid_parameter", "Invalid JSON body");
        }
        if (!payload.from || !payload.to || !payload.subject) return error(422, "validation_error", "The `from`, `to` and `subject` fields are required.");
        const refused = checkAttachments(payload.attachments as unknown);
        if (refused) return error(422, "validation_error", refused);
        const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) ?? null;
        attempts.push(idempotencyKey);
        if (idempotencyKey) {
          const seen = byIdempotencyKey.get(idempotencyKey);
          if (seen && seen.fingerprint !== body) return error(409, "invalid_idempotent_request", "Same idempotency key used with a different request payload.");
          if (seen) return json(200, { id: seen.id });
        }
        const id = randomUUID();
        if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, { id, fingerprint: body });
        sent.push({ id, idempotencyKey, body: payload });
        return json(200, { id });
      }
      const receiving = url.pathname.match(/^\/emails\/receiving\/([^/]+)$/);
      if (req.method === "GET" && receiving) {
        const mail = received.get(receiving[1]!);
        if (!mail) return error(404, "not_found", "Email not found");
        return json(200, {
          object: "email",
          id: mail.id,
          to: mail.to,
          from: mail.from,
          created_at: new Date().toISOString(),
          subject: mail.subject,
          bcc: null,
          cc: null,
          reply_to: null,
          received_for: mail.to,
          html: mail.html ?? null,
          text: mail.text ?? null,
          headers: mail.headers ?? null,
          message_id: `<${mail.id}@fake.resend>`,
          raw: mail.raw || mail.rawStream ? signedDownload(mail.id) : null,
          attachments: [],
        });
      }
      return error(404, "not_found", `No route ${req.method} ${url.pathname} in the fake`);
    });
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  /** Resend's `raw` object: a signed URL (CloudFront's, on its CDN host in production) valid for an hour. */
  const signedDownload = (id: string) => {
    const p = `/raw/${id}`;
    const expires = Math.floor(Date.now() / 1000) + 3600;
    return { download_url: `http://127.0.0.1:${port}${p}?Expires=${expires}&Signature=${sign(p, expires)}`, expires_at: new Date(expires * 1000).toISOString() };
  };

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    sent,
    attempts,
    downloads,
    /** The next POST /emails answers with this error instead (queue several for several). */
    failNext(status: number, name = status >= 500 ? "application_error" : "validation_error", message = `fake failure ${status}`) {
      failures.push({ status, name, message });
    },
    /** Makes a received message available, as Resend stores it after its inbound MX accepted it. */
    receive(mail: Omit<ReceivedEmail, "id"> & { id?: string }): ReceivedEmail {
      const stored = { ...mail, id: mail.id ?? randomUUID() };
      received.set(stored.id, stored);
      return stored;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Resend (Svix) webhook request: the JSON event signed with the endpoint's `whsec_` secret. */
export function signedResendWebhook(secret: string, event: { type: string; created_at?: string; data: Record<string, unknown> }, opts: { id?: string; at?: Date } = {}) {
  const body = JSON.stringify({ created_at: new Date().toISOString(), ...event });
  const id = opts.id ?? `msg_${randomUUID()}`;
  const at = opts.at ?? new Date();
  const signature = new Webhook(secret).sign(id, at, body);
  return {
    body,
    headers: { "content-type": "application/json", "svix-id": id, "svix-timestamp": String(Math.floor(at.getTime() / 1000)), "svix-signature": signature },
  };
}

export const newResendWebhookSecret = () => `whsec_${Buffer.from(randomUUID()).toString("base64")}`;
