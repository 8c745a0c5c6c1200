import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export type TestIdp = {
  issuer: string;
  /** Who logs in at the next interaction (the test plays the person at the identity provider). */
  loginAs: (email: string, claims?: Record<string, unknown>) => void;
  close: () => Promise<void>;
};

const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The identity provider's sign-in page, as a person sees it in a browser (the e2e story fills it in). */
const loginPage = (uid: string, hint: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in — Test IdP</title></head>
<body style="font-family:sans-serif;max-width:24rem;margin:4rem auto">
<h1>Test IdP</h1><p>Sign in to continue to AgentDraft.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="idp-email">Email</label><br><input id="idp-email" name="email" type="email" value="${escapeHtml(hint)}" required><br><br>
<label for="idp-password">Password</label><br><input id="idp-password" name="password" type="password" required><br><br>
<button type="submit">Sign in</button>
</form></body></html>`;

const readForm = (req: http.IncomingMessage) =>
  new Promise<URLSearchParams>((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk.length + body.length > 10_000 ? "" : chunk));
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });

/**
 * A real OpenID Connect provider (oidc-provider) on loopback with the given clients. Its login and
 * consent are answered by this server: the interaction page logs in whoever `loginAs` named and
 * grants the scopes asked for, so a test drives the whole redirect dance with fetch. With
 * `loginForm`, the interaction page is a sign-in form a browser fills in instead (any password).
 * `port` 0 takes any free port; the e2e story gives a fixed one (the server's environment names it).
 */
export async function startTestIdp(clients: { client_id: string; client_secret: string; redirect_uris: string[] }[], opts: { port?: number; loginForm?: boolean } = {}): Promise<TestIdp> {
  let next: { email: string; claims: Record<string, unknown> } = { email: "nobody@example.test", claims: {} };
  const accounts = new Map<string, Record<string, unknown>>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ ...c, grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" })),
    cookies: { keys: ["test-idp-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    async findAccount(_ctx: unknown, id: string) {
      const extra = accounts.get(id) ?? {};
      return { accountId: id, claims: async () => ({ sub: id, email: id, email_verified: true, name: `Person ${id}`, ...extra }) };
    },
  });
  const callback = provider.callback();
  server.on("request", async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      let accountId = next.email;
      if (opts.loginForm) {
        if (req.method !== "POST") {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(details.uid, String(details.params.login_hint ?? "")));
          return;
        }
        const form = await readForm(req);
        accountId = (form.get("email") ?? "").trim().toLowerCase();
        if (!accountId || !form.get("password")) {
          res.writeHead(400).end("enter an email and a password");
          return;
        }
      }
      accounts.set(accountId, accountId === next.email ? next.claims : {});
      const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  return {
    issuer,
    loginAs: (email, claims = {}) => {
      next = { email, claims };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A browser's cookies for these tests: by name only (everything here is one loopback host). */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  /** GET without following redirects, carrying and storing cookies. */
  async get(url: string): Promise<Response> {
    const res = await fetch(url, { redirect: "manual", headers: { cookie: this.header() } });
    this.store(res);
    return res;
  }
}
