// @suite moved-clock
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { resetEnvCache } from "../../platform/config/env";
import { getDb } from "../../../db/client";
import { apiKeys, auditEntries, members, sessions, users, type MemberRole } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { sealWorkspace } from "../../../test/helpers/audit";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();

// The public origin is the test server's: the resource a token is for, and the issuer.
let savedAuthUrl: string | undefined;
beforeAll(() => {
  savedAuthUrl = process.env.AUTH_URL;
  process.env.AUTH_URL = url();
  resetEnvCache();
});
afterAll(() => {
  if (savedAuthUrl === undefined) delete process.env.AUTH_URL;
  else process.env.AUTH_URL = savedAuthUrl;
  resetEnvCache();
});

const REDIRECT = "http://127.0.0.1:9/callback";
let n = 0;

/** A person signed in to the web app: a member with a user and a session, its passkey confirmed `confirmedAgoMs` ago. */
async function person(workspaceId: string, role: MemberRole = "admin", confirmedAgoMs = 0) {
  const db = await getDb();
  const address = `person-${process.pid}-${++n}@team.test`;
  const [user] = await db.insert(users).values({ id: newId("user"), email: address }).returning();
  const [member] = await db.insert(members).values({ id: newId("member"), workspaceId, email: address, role, userId: user!.id }).returning();
  const token = `session-${member!.id}`;
  await db.insert(sessions).values({ sessionToken: token, userId: user!.id, expires: new Date(Date.now() + 3_600_000), authenticatedAt: new Date(Date.now() - confirmedAgoMs) });
  return { member: member!, cookie: `authjs.session-token=${token}` };
}

/** An OAuth client as the MCP SDK's clients keep one: in memory, registering itself on first use. */
function sdkProvider(name = "Test client"): OAuthClientProvider & { authorizationUrl?: URL; stored: { tokens?: OAuthTokens } } {
  let info: OAuthClientInformationMixed | undefined;
  let verifier = "";
  const stored: { tokens?: OAuthTokens } = {};
  const provider = {
    stored,
    authorizationUrl: undefined as URL | undefined,
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata() {
      return { client_name: name, redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    },
    clientInformation: () => info,
    saveClientInformation: (i: OAuthClientInformationMixed) => {
      info = i;
    },
    tokens: () => stored.tokens,
    saveTokens: (t: OAuthTokens) => {
      stored.tokens = t;
    },
    redirectToAuthorization: (u: URL) => {
      provider.authorizationUrl = u;
    },
    saveCodeVerifier: (v: string) => {
      verifier = v;
    },
    codeVerifier: () => verifier,
  };
  return provider;
}

/** The consent form, posted as the page posts it; returns where the browser is sent. */
async function consent(authorizationUrl: URL, who: { member: { workspaceId: string }; cookie: string }, choice: { agentId: string; scopes: string[]; decision?: string }, origin = url()) {
  const form = new URLSearchParams({ request: authorizationUrl.searchParams.toString(), decision: choice.decision ?? "allow", workspace_id: who.member.workspaceId, agent_id: choice.agentId });
  for (const s of choice.scopes) form.append("scope", s);
  const res = await fetch(`${url()}/oauth/authorize/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie: who.cookie },
    body: form.toString(),
    redirect: "manual",
  });
  return { status: res.status, location: res.headers.get("location"), json: res.status === 303 ? null : await res.json() };
}

/** Connects the SDK's client by URL alone: discovery, registration, consent by `who`, the code exchanged. */
async function connectByUrl(agentId: string, who: Awaited<ReturnType<typeof person>>, scopes = ["calendar", "mail"]) {
  const provider = sdkProvider();
  const mcpUrl = new URL(`${url()}/api/mcp`);
  const first = new Client({ name: "oauth-test", version: "1" });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow(/Unauthorized/);
  expect(provider.authorizationUrl).toBeDefined();
  const { location } = await consent(provider.authorizationUrl!, who, { agentId, scopes });
  const redirected = new URL(location!);
  expect(redirected.searchParams.get("iss")).toBe(url());
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(redirected.searchParams.get("code")!);
  const client = new Client({ name: "oauth-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  return { provider, client, mcpUrl };
}

describe("remote MCP with OAuth 2.1", () => {
  it("answers a client without credentials with where to authorize (RFC 9728, RFC 8414)", async () => {
    const res = await api("/api/mcp", { body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${url()}/.well-known/oauth-protected-resource/api/mcp"`);
    const prm = await api("/.well-known/oauth-protected-resource/api/mcp");
    expect(prm.json).toMatchObject({ resource: `${url()}/api/mcp`, authorization_servers: [url()], bearer_methods_supported: ["header"] });
    const as = await api("/.well-known/oauth-authorization-server");
    expect(as.json).toMatchObject({
      issuer: url(),
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      registration_endpoint: `${url()}/api/oauth/register`,
    });
  });

  it("the MCP SDK's OAuth client connects by URL alone, acts as the chosen agent with the granted scopes, refreshes, and is refused after revocation", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "scheduler");
    const owner = await person(workspace.id, "owner");
    const { provider, client, mcpUrl } = await connectByUrl(agent.id, owner, ["calendar"]);

    const me = await client.callTool({ name: "list_inboxes", arguments: {} });
    expect(me.isError, JSON.stringify(me)).toBe(true); // mail was not granted
    expect(JSON.stringify(me.content)).toMatch(/mail/);
    const cals = await client.callTool({ name: "check_availability", arguments: { calendar_ids: ["cal_00000000000000000000000000"], start_time: T(9), end_time: T(10) } });
    expect(JSON.stringify(cals.content)).not.toMatch(/scope/);

    // The grant is an agent-bound key with the chosen scopes, connected by the person (audited).
    const db = await getDb();
    const [grant] = await db.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspace.id));
    expect(grant).toMatchObject({ agentId: agent.id, scopes: ["calendar"], name: "Test client" });
    expect(grant!.oauthClientId).toBeTruthy();
    await sealWorkspace(workspace.id);
    const audit = await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id));
    expect(audit.find((e) => e.action === "oauth.client_connected")).toMatchObject({ actorType: "member", actorId: owner.member.id, agentId: agent.id });

    // Refresh rotates: the new pair works, the old refresh token is spent.
    const before = provider.stored.tokens!;
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe("AUTHORIZED");
    const after = provider.stored.tokens!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const again = new Client({ name: "oauth-test", version: "1" });
    await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await again.listTools()).tools.length).toBeGreaterThan(5);

    // Revoking the refresh token ends the grant: the access token is refused at once.
    const revoke = await fetch(`${url()}/api/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: after.refresh_token!, client_id: (await provider.clientInformation())!.client_id }).toString(),
    });
    expect(revoke.status).toBe(200);
    const refused = await api("/api/mcp", { key: after.access_token, body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("an access token is good only at /api/mcp, the resource it was issued for", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const { provider } = await connectByUrl(agent.id, await person(workspace.id));
    const res = await api("/api/v1/agents", { key: provider.stored.tokens!.access_token });
    expect(res.status).toBe(401);
    expect(res.json.detail).toMatch(/only at the MCP server/);
  });

  it("a refresh token used twice revokes the grant (two parties hold it)", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const { provider } = await connectByUrl(agent.id, await person(workspace.id));
    const { refresh_token, access_token } = provider.stored.tokens!;
    const clientId = (await provider.clientInformation())!.client_id;
    const refresh = () =>
      fetch(`${url()}/api/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh_token!, client_id: clientId }).toString(),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
    const results = await Promise.all(Array.from({ length: 8 }, refresh));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).every((r) => r.json.error === "invalid_grant")).toBe(true);
    const winner = results.find((r) => r.status === 200)!.json;
    // The replays revoked the grant: even the winner's new token is refused, and so is the old one.
    for (const token of [winner.access_token, access_token]) {
      expect((await api("/api/mcp", { key: token, body: { jsonrpc: "2.0", id: 1, method: "ping" } })).status).toBe(401);
    }
  });

  it("a code is spent once, even by racing exchanges; a replay revokes what it gave; PKCE must match", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const owner = await person(workspace.id);
    const provider = sdkProvider();
    await expect(new Client({ name: "t", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { authProvider: provider }))).rejects.toThrow();
    const { location } = await consent(provider.authorizationUrl!, owner, { agentId: agent.id, scopes: ["calendar"] });
    const code = new URL(location!).searchParams.get("code")!;
    const clientId = (await provider.clientInformation())!.client_id;
    const exchange = (verifier: string) =>
      fetch(`${url()}/api/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource: `${url()}/api/mcp` }).toString(),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
    const results = await Promise.all(Array.from({ length: 8 }, () => exchange(provider.codeVerifier() as string)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const token = results.find((r) => r.status === 200)!.json.access_token;
    expect((await api("/api/mcp", { key: token, body: { jsonrpc: "2.0", id: 1, method: "ping" } })).status).toBe(401);

    // A fresh code with the wrong verifier is refused (and spent).
    const p2 = sdkProvider();
    await expect(new Client({ name: "t", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { authProvider: p2 }))).rejects.toThrow();
    const second = await consent(p2.authorizationUrl!, owner, { agentId: agent.id, scopes: ["calendar"] });
    const wrong = await fetch(`${url()}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: new URL(second.location!).searchParams.get("code")!, code_verifier: "x".repeat(43), redirect_uri: REDIRECT, client_id: (await p2.clientInformation())!.client_id }).toString(),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/code_verifier/) });
  });

  it("consent needs an admin of the agent's workspace, a passkey confirmed minutes ago, this site's form, and only what was asked", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const { workspace: other } = await newWorkspace();
    const stranger = await newAgent(other.id);
    const provider = sdkProvider();
    await expect(new Client({ name: "t", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { authProvider: provider }))).rejects.toThrow();
    const at = provider.authorizationUrl!;
    const stale = await person(workspace.id, "owner", 10 * 60_000);
    expect((await consent(at, stale, { agentId: agent.id, scopes: ["calendar"] })).json.detail).toMatch(/passkey/);
    const viewer = await person(workspace.id, "approver");
    expect((await consent(at, viewer, { agentId: agent.id, scopes: ["calendar"] })).status).toBe(403);
    const admin = await person(workspace.id, "admin");
    expect((await consent(at, admin, { agentId: agent.id, scopes: ["calendar"] }, "http://evil.test")).status).toBe(403);
    expect((await consent(at, admin, { agentId: stranger.id, scopes: ["calendar"] })).status).toBe(404);
    expect((await consent(at, admin, { agentId: agent.id, scopes: [] })).status).toBe(400);
    const denied = await consent(at, admin, { agentId: agent.id, scopes: ["calendar"], decision: "deny" });
    expect(new URL(denied.location!).searchParams.get("error")).toBe("access_denied");
    expect(new URL(denied.location!).searchParams.get("state")).toBe(at.searchParams.get("state"));
    const db = await getDb();
    expect(await db.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspace.id))).toEqual([]);
  });

  it("authorization requests: unknown clients and redirect URIs are shown, never redirected; PKCE S256 and the resource are required", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const admin = await person(workspace.id);
    const provider = sdkProvider();
    await expect(new Client({ name: "t", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { authProvider: provider }))).rejects.toThrow();
    const base = provider.authorizationUrl!;
    const variant = (change: Record<string, string | null>) => {
      const u = new URL(base);
      for (const [k, v] of Object.entries(change)) {
        if (v === null) u.searchParams.delete(k);
        else u.searchParams.set(k, v);
      }
      return u;
    };
    // Shown to the person (no redirect): an unknown client, a redirect URI it did not register.
    expect((await consent(variant({ client_id: "oac_unknown" }), admin, { agentId: agent.id, scopes: ["calendar"] })).status).toBe(400);
    expect((await consent(variant({ redirect_uri: "https://evil.test/cb" }), admin, { agentId: agent.id, scopes: ["calendar"] })).status).toBe(400);
    expect((await consent(variant({ redirect_uri: `${REDIRECT}/` }), admin, { agentId: agent.id, scopes: ["calendar"] })).status).toBe(400);
    // Back to the client, with its state.
    for (const [change, error] of [
      [{ code_challenge: null }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ resource: null }, "invalid_target"],
      [{ resource: "https://other.test/api/mcp" }, "invalid_target"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "calendar admin" }, "invalid_scope"],
    ] as const) {
      const out = await consent(variant(change), admin, { agentId: agent.id, scopes: ["calendar"] });
      expect(out.status, JSON.stringify(change)).toBe(303);
      const back = new URL(out.location!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get("error"), JSON.stringify(change)).toBe(error);
      expect(back.searchParams.get("code")).toBeNull();
    }
  });

  it("registration takes public clients with safe redirect URIs only, and is rate limited", async () => {
    const register = (body: unknown, address = "203.0.113.7") =>
      fetch(`${url()}/api/oauth/register`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": address }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, json: await r.json() }));
    for (const uri of ["http://evil.test/cb", "javascript:alert(1)", "https://ok.test/cb#frag", "data:text/html,x", "not a uri"]) {
      const out = await register({ client_name: "x", redirect_uris: [uri] }, "203.0.113.1");
      expect(out.status, uri).toBe(400);
      expect(out.json.error, uri).toBe("invalid_redirect_uri");
    }
    expect((await register({ client_name: "x", redirect_uris: ["https://ok.test/cb"], grant_types: ["client_credentials"] }, "203.0.113.2")).json.error).toBe("invalid_client_metadata");
    const ok = await register({ client_name: "Cursor", redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback", "http://127.0.0.1:33418/cb"], token_endpoint_auth_method: "client_secret_basic" }, "203.0.113.3");
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({ client_name: "Cursor", token_endpoint_auth_method: "none" });
    expect(ok.json.client_secret).toBeUndefined();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await register({ client_name: "flood", redirect_uris: ["https://ok.test/cb"] }, "198.51.100.9")).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  it("refuses browser requests from foreign origins (DNS rebinding), allows its own and registered clients'", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const { provider } = await connectByUrl(agent.id, await person(workspace.id));
    const token = provider.stored.tokens!.access_token;
    const ping = (origin?: string) => api("/api/mcp", { key: token, headers: { accept: "application/json, text/event-stream", ...(origin ? { origin } : {}) }, body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect((await ping("http://attacker.test")).status).toBe(403);
    expect((await ping()).status).toBe(200);
    expect((await ping(url())).status).toBe(200);
    expect((await ping("http://127.0.0.1:9")).status).toBe(200); // the registered client's redirect origin
  });
});
