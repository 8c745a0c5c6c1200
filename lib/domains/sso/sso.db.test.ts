// SSO with OpenID Connect per workspace (docs/sso.md): connections, DNS-verified domains, and the
// whole sign-in over real HTTP against a real identity provider (oidc-provider on loopback).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { getDb } from "../../../db/client";
import { auditEntries, authenticators, invitations, outboundMail, members, scimUsers, sessions, ssoConnections, ssoSignIns, users } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { CookieJar, startTestIdp, type TestIdp } from "../../../test/helpers/oidc-provider";
import { startTestDns } from "../../../test/helpers/dns-server";
import { raceAtLock } from "../../../test/helpers/race-at-lock";
import { envSchema, resetEnvCache } from "../../platform/config/env";
import { newId } from "../../platform/ids";
import { isRecentlyAuthenticated } from "../passkeys/passkeys";
import { passkeySignInAllowed } from "../auth/sso-gate";
import { agentDraftAdapter } from "../auth/adapter";
import { saveSsoConnection, deleteSsoConnection, getSsoConnection } from "./connections";
import { addSsoDomain, removeSsoDomain, setSsoRequired, ssoRequiredForEmail, verificationRecordName, verificationRecordValue, verifySsoDomain, type TxtResolver } from "./domains";
import { ENROL_PASSKEY_PATH } from "./responses";
import { createInvitation } from "../invitations/create-invitation";
import { revokeInvitation } from "../invitations/revoke-invitation";

setTestEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32" });
const { url } = serveApiForTests();

let savedAuthUrl: string | undefined;
let idp: TestIdp; // the workspace's identity provider
let otherIdp: TestIdp; // another one, with a client of the same id
const SECRET = "idp-client-secret";
beforeAll(async () => {
  savedAuthUrl = process.env.AUTH_URL;
  process.env.AUTH_URL = url();
  resetEnvCache();
  const redirect_uris = [`${url()}/sso/callback`];
  idp = await startTestIdp([
    { client_id: "agentdraft", client_secret: SECRET, redirect_uris },
    { client_id: "other-app", client_secret: "other-secret", redirect_uris },
  ]);
  otherIdp = await startTestIdp([{ client_id: "agentdraft", client_secret: SECRET, redirect_uris }]);
});
afterAll(async () => {
  await idp?.close();
  await otherIdp?.close();
  if (savedAuthUrl === undefined) delete process.env.AUTH_URL;
  else process.env.AUTH_URL = savedAuthUrl;
  resetEnvCache();
});

/** DNS as the tests publish it: name → TXT records. */
const dns = new Map<string, string[][]>();
const resolver: TxtResolver = async (name) => {
  const records = dns.get(name);
  if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return records;
};

let n = 0;
const domainName = (base: string) => `${base}-${process.pid}-${++n}.test`;

/** A workspace with an admin, a connection to `issuer`, and `domain` added and (unless told) verified. */
async function ssoWorkspace(opts: { issuer?: string; domain?: string; verify?: boolean; justInTime?: boolean } = {}) {
  const { workspace } = await newWorkspace();
  const admin = await newMember(workspace.id, "admin");
  const connection = await saveSsoConnection(admin.actor, { issuer: opts.issuer ?? idp.issuer, client_id: "agentdraft", client_secret: SECRET, just_in_time: opts.justInTime ?? false });
  const name = opts.domain ?? domainName("acme");
  const domain = await addSsoDomain(admin.actor, { name });
  if (opts.verify !== false) {
    dns.set(verificationRecordName(name), [["v=spf1 -all"], [verificationRecordValue(domain.verificationToken)]]);
    await verifySsoDomain(admin.actor, domain.id, resolver);
  }
  return { workspace, admin, connection, domain, name };
}

/** A member (with a user, as the web app makes them) of `workspaceId`. */
async function member(workspaceId: string, email: string, role: "admin" | "viewer" = "viewer") {
  const db = await getDb();
  const [user] = await db.insert(users).values({ id: newId("user"), email }).returning();
  const [row] = await db.insert(members).values({ id: newId("member"), workspaceId, email, role, userId: user!.id }).returning();
  return { user: user!, member: row! };
}

type Flow = { jar: CookieJar; start: Response; authorizationUrl?: string; callbackUrl?: string; final?: Response; location?: string };

/** Starts at /sso/start, returns where it sends the browser (the identity provider, or back to sign-in). */
async function start(email: string, jar = new CookieJar()): Promise<Flow> {
  const res = await jar.get(`${url()}/sso/start?email=${encodeURIComponent(email)}&next=${encodeURIComponent("/approvals")}`);
  expect(res.status).toBe(303);
  const location = res.headers.get("location")!;
  return { jar, start: res, location, authorizationUrl: location.startsWith(url()) ? undefined : location };
}

/** Plays the person at the identity provider: follows its redirects until it sends the browser to our callback. */
async function atIdp(jar: CookieJar, provider: TestIdp, authorizationUrl: string, loginAs: string, claims: Record<string, unknown> = {}): Promise<string> {
  provider.loginAs(loginAs, claims);
  let location = authorizationUrl;
  for (let hops = 0; hops < 10 && !location.startsWith(`${url()}/`); hops++) {
    const res = await jar.get(location);
    expect([302, 303], `${location} answered ${res.status}: ${await res.clone().text()}`).toContain(res.status);
    location = new URL(res.headers.get("location")!, location).href;
  }
  expect(location.startsWith(`${url()}/sso/callback?`)).toBe(true);
  return location;
}

/** The whole sign-in: start, the identity provider, the callback. */
async function signIn(email: string, loginAs = email, claims: Record<string, unknown> = {}): Promise<Flow & { sessionToken?: string }> {
  const flow = await start(email);
  expect(flow.authorizationUrl, `start refused: ${flow.location}`).toBeDefined();
  const callbackUrl = await atIdp(flow.jar, idp, flow.authorizationUrl!, loginAs, claims);
  const final = await flow.jar.get(callbackUrl);
  expect(final.status).toBe(303);
  return { ...flow, callbackUrl, final, location: final.headers.get("location")!, sessionToken: flow.jar.cookies.get("authjs.session-token") };
}

async function actions(workspaceId: string) {
  const db = await getDb();
  const rows = await db.select({ action: auditEntries.action, summary: auditEntries.summary }).from(auditEntries).where(eq(auditEntries.workspaceId, workspaceId));
  return rows;
}

async function sessionsOf(email: string) {
  const db = await getDb();
  return db.select({ token: sessions.sessionToken, authenticatedAt: sessions.authenticatedAt }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(sql`lower(${users.email}) = ${email}`);
}

/** The session as Auth.js reads it for every page (its database adapter, ours). */
async function authSession(token: string) {
  return agentDraftAdapter(await getDb(), async () => null).getSessionAndUser!(token);
}

/** A route of the web app that reads the session cookie itself: the OAuth consent form's (401 without a session). */
async function consentWith(cookie: string, workspaceId: string) {
  const res = await fetch(`${url()}/oauth/authorize/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url(), cookie },
    body: new URLSearchParams({ decision: "allow", workspace_id: workspaceId, request: "" }).toString(),
    redirect: "manual",
  });
  return { status: res.status, code: ((await res.json()) as { code?: string }).code };
}

describe("an OIDC connection", () => {
  it("is checked by discovery, stores its secret sealed, and every change is audited", async () => {
    const { workspace, admin, connection } = await ssoWorkspace();
    expect(connection.issuer).toBe(idp.issuer);
    const db = await getDb();
    const [row] = await db.select().from(ssoConnections).where(eq(ssoConnections.id, connection.id));
    expect(row!.clientSecretSealed).toMatch(/^v1\./);
    expect(row!.clientSecretSealed).not.toContain(SECRET);
    // Editing without a secret keeps the stored one.
    const edited = await saveSsoConnection(admin.actor, { issuer: idp.issuer, client_id: "agentdraft", just_in_time: true });
    expect(edited).toMatchObject({ id: connection.id, justInTime: true, clientSecretSealed: expect.stringMatching(/^v1\./) });
    const logged = (await actions(workspace.id)).map((a) => a.action);
    expect(logged).toEqual(expect.arrayContaining(["sso_connection.created", "sso_connection.updated", "sso_domain.added", "sso_domain.verified"]));
    expect(JSON.stringify(await actions(workspace.id))).not.toContain(SECRET);
  });

  it("is refused when discovery fails or the issuer points inside the network", async () => {
    const { workspace } = await newWorkspace();
    const admin = await newMember(workspace.id, "admin");
    const dead = http.createServer((_q, r) => r.writeHead(404).end());
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const port = (dead.address() as AddressInfo).port;
    try {
      await expect(saveSsoConnection(admin.actor, { issuer: `http://127.0.0.1:${port}`, client_id: "x", client_secret: "y" })).rejects.toMatchObject({ code: "validation_failed", message: expect.stringContaining("discovery") });
    } finally {
      dead.close();
    }
    // 127.0.0.2 is loopback and not on the allowlist: neither plain http nor https reaches it.
    await expect(saveSsoConnection(admin.actor, { issuer: "http://127.0.0.2:9", client_id: "x", client_secret: "y" })).rejects.toThrow(/must be an https URL/);
    await expect(saveSsoConnection(admin.actor, { issuer: "https://127.0.0.2:9", client_id: "x", client_secret: "y" })).rejects.toMatchObject({ code: "validation_failed", message: expect.stringMatching(/loopback|private/) });
    // A connection needs its secret.
    await expect(saveSsoConnection(admin.actor, { issuer: idp.issuer, client_id: "agentdraft" })).rejects.toMatchObject({ code: "validation_failed" });
    expect(await getSsoConnection(workspace.id)).toBeNull();
  });
});

describe("email domains", () => {
  it("verify by their TXT record at _agentdraft.<domain>, and only a verified domain can require SSO", async () => {
    const { admin, domain, name } = await ssoWorkspace({ verify: false });
    await expect(verifySsoDomain(admin.actor, domain.id, resolver)).rejects.toMatchObject({ code: "domain_not_verified", message: expect.stringContaining(`_agentdraft.${name}`) });
    await expect(setSsoRequired(admin.actor, domain.id, true)).rejects.toMatchObject({ code: "domain_not_verified" });
    dns.set(`_agentdraft.${name}`, [["agentdraft-verification=wrong"]]);
    await expect(verifySsoDomain(admin.actor, domain.id, resolver)).rejects.toMatchObject({ code: "domain_not_verified" });
    // A long TXT value comes in chunks of at most 255 characters: they are joined.
    const value = verificationRecordValue(domain.verificationToken);
    dns.set(`_agentdraft.${name}`, [[value.slice(0, 10), value.slice(10)]]);
    const verified = await verifySsoDomain(admin.actor, domain.id, resolver);
    expect(verified.verifiedAt).toBeInstanceOf(Date);
    expect((await setSsoRequired(admin.actor, domain.id, true)).requireSso).toBe(true);
  });

  it("verify through the loopback DNS server SSO_DNS_SERVER names (a real DNS exchange), and no other", async () => {
    const dnsServer = await startTestDns();
    const saved = process.env.SSO_DNS_SERVER;
    try {
      process.env.SSO_DNS_SERVER = dnsServer.address;
      resetEnvCache();
      const { admin, domain, name } = await ssoWorkspace({ verify: false });
      await expect(verifySsoDomain(admin.actor, domain.id)).rejects.toMatchObject({ code: "domain_not_verified" }); // NXDOMAIN
      dnsServer.setTxt(`_agentdraft.${name}`, ["v=spf1 -all", verificationRecordValue(domain.verificationToken)]);
      expect((await verifySsoDomain(admin.actor, domain.id)).verifiedAt).toBeInstanceOf(Date);
    } finally {
      if (saved === undefined) delete process.env.SSO_DNS_SERVER;
      else process.env.SSO_DNS_SERVER = saved;
      resetEnvCache();
      await dnsServer.close();
    }
    // Only a resolver on this host: another address is a configuration error at start.
    const dnsServerSetting = (v: string) => envSchema.shape.SSO_DNS_SERVER.safeParse(v).success;
    expect(dnsServerSetting("127.0.0.1:5353")).toBe(true);
    expect(dnsServerSetting("[::1]:53")).toBe(true);
    for (const bad of ["8.8.8.8:53", "10.0.0.1:53", "dns.example.com:53", "127.0.0.1", "localhost:53"]) expect(dnsServerSetting(bad), bad).toBe(false);
  });

  it("are validated, and another workspace's domain cannot be read or changed", async () => {
    const a = await ssoWorkspace();
    const b = await ssoWorkspace();
    for (const bad of ["localhost", "a", "-x.com", "1.2.3.4", "acme..com", "x".repeat(300)]) {
      await expect(addSsoDomain(a.admin.actor, { name: bad })).rejects.toMatchObject({ code: "validation_failed" });
    }
    await expect(verifySsoDomain(a.admin.actor, b.domain.id, resolver)).rejects.toMatchObject({ code: "not_found" });
    await expect(setSsoRequired(a.admin.actor, b.domain.id, false)).rejects.toMatchObject({ code: "not_found" });
    await expect(removeSsoDomain(a.admin.actor, b.domain.id)).rejects.toMatchObject({ code: "not_found" });
    // Whatever its case, or with a trailing dot, a domain of one workspace is not another's.
    await expect(addSsoDomain(a.admin.actor, { name: `${b.name.toUpperCase()}.` })).rejects.toMatchObject({ code: "domain_taken" });
  });

  it("racing claims of one domain: exactly one workspace gets it", async () => {
    const contenders = await Promise.all(Array.from({ length: 8 }, () => ssoWorkspace()));
    const name = domainName("contested");
    const results = await Promise.allSettled(contenders.map((c) => addSsoDomain(c.admin.actor, { name })));
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "domain_taken" });
    const db = await getDb();
    const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from sso_domains where name = ${name}`);
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

describe("signing in with SSO", () => {
  it("runs the whole flow: a session Auth.js accepts, audited, a person without a passkey sent to enrol one", async () => {
    const { workspace, name } = await ssoWorkspace();
    const email = `ada@${name}`;
    const ada = await member(workspace.id, email);
    const flow = await signIn(email);
    const authUrl = new URL(flow.authorizationUrl!);
    expect(authUrl.origin).toBe(idp.issuer);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("nonce")).toBeTruthy();
    expect(flow.start.headers.getSetCookie().join()).toMatch(/agentdraft-sso-state=.*HttpOnly/i);
    expect(flow.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    expect(flow.sessionToken).toBeTruthy();
    expect(flow.final!.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))).toMatch(/HttpOnly; SameSite=Lax/);
    // The workspace of the connection becomes the active one (the web app's workspace cookie).
    expect(flow.final!.headers.getSetCookie().find((c) => c.startsWith("agentdraft-workspace="))).toMatch(new RegExp(`^agentdraft-workspace=${workspace.id}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax`));
    expect(flow.jar.cookies.get("agentdraft-workspace")).toBe(workspace.id);
    // The session remembers it began with SSO (a domain that requires SSO lets only such a session register a passkey).
    expect(await (await getDb()).select({ via: sessions.signedInVia }).from(sessions).where(eq(sessions.sessionToken, flow.sessionToken!))).toEqual([{ via: "sso" }]);
    // Auth.js reads that session like one it made: the web app is signed in.
    expect(await authSession(flow.sessionToken!)).toMatchObject({ user: { email, id: ada.user.id }, session: { sessionToken: flow.sessionToken } });
    // Over HTTP: the consent route takes the cookie as a member's session (then finds no OAuth request: 400), and refuses a forged one (401).
    expect(await consentWith(flow.jar.header(), workspace.id)).toEqual({ status: 400, code: "invalid_request" });
    expect(await consentWith("authjs.session-token=forged", workspace.id)).toEqual({ status: 401, code: "unauthorized" });
    // An SSO sign-in is not a passkey proof: passkey changes and approvals still ask for one.
    expect(await isRecentlyAuthenticated(ada.user.id, flow.sessionToken)).toBe(false);
    const signedIn = (await actions(workspace.id)).filter((a) => a.action === "sso.signed_in");
    expect(signedIn).toHaveLength(1);
    expect(signedIn[0]!.summary).toMatchObject({ email, protocol: "oidc", issuer: idp.issuer, subject: email });
    // The sign-in row is gone once used.
    const db = await getDb();
    expect(await db.select().from(ssoSignIns).where(eq(ssoSignIns.state, new URL(flow.callbackUrl!).searchParams.get("state")!))).toHaveLength(0);
  });

  it("sends a person who has a passkey where they were going", async () => {
    const { workspace, name } = await ssoWorkspace();
    const email = `kay@${name}`;
    const kay = await member(workspace.id, email);
    const db = await getDb();
    await db.insert(authenticators).values({ credentialID: `cred-${n}`, userId: kay.user.id, providerAccountId: `cred-${n}`, credentialPublicKey: "pk", counter: 0, credentialDeviceType: "singleDevice", credentialBackedUp: false });
    const flow = await signIn(email);
    expect(flow.location).toBe(`${url()}/approvals`);
  });

  it("accepts a callback once: wrong state, a missing cookie and a replay are refused", async () => {
    const { workspace, name } = await ssoWorkspace();
    const email = `bea@${name}`;
    await member(workspace.id, email);
    const flow = await start(email);
    const callbackUrl = await atIdp(flow.jar, idp, flow.authorizationUrl!, email);
    // Another browser (no state cookie), and a state that is not this browser's.
    const bare = await fetch(callbackUrl, { redirect: "manual" });
    expect(bare.headers.get("location")).toBe(`${url()}/sign-in?sso_error=expired`);
    const wrong = new URL(callbackUrl);
    wrong.searchParams.set("state", "forged-state");
    const forged = await fetch(wrong, { redirect: "manual", headers: { cookie: `agentdraft-sso-state=forged-state` } });
    expect(forged.headers.get("location")).toBe(`${url()}/sign-in?sso_error=expired`);
    // A state as long as the cookie's in characters but not in bytes: refused like any wrong state, never a 500.
    const real = flow.jar.header().match(/agentdraft-sso-state=([^;]+)/)![1]!;
    const lookalike = new URL(callbackUrl);
    lookalike.searchParams.set("state", `é${real.slice(1)}`);
    const odd = await fetch(lookalike, { redirect: "manual", headers: { cookie: flow.jar.header() } });
    expect(odd.status).toBe(303);
    expect(odd.headers.get("location")).toBe(`${url()}/sign-in?sso_error=expired`);
    // The real one works once; the same callback again (the code replayed) is refused.
    const cookie = flow.jar.header();
    const first = await fetch(callbackUrl, { redirect: "manual", headers: { cookie } });
    expect(first.headers.get("location")).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    const replay = await fetch(callbackUrl, { redirect: "manual", headers: { cookie } });
    expect(replay.headers.get("location")).toBe(`${url()}/sign-in?sso_error=expired`);
    expect(await sessionsOf(email)).toHaveLength(1);
  });

  it("refuses a code from another identity provider, or issued to another client", async () => {
    const { workspace, name } = await ssoWorkspace();
    const email = `cy@${name}`;
    await member(workspace.id, email);
    // The same request sent to another provider (same client id and secret): its answer names another issuer.
    const a = await start(email);
    const viaOther = await atIdp(a.jar, otherIdp, a.authorizationUrl!.replace(idp.issuer, otherIdp.issuer), email);
    expect(new URL(viaOther).searchParams.get("iss")).toBe(otherIdp.issuer);
    const r1 = await a.jar.get(viaOther);
    expect(r1.headers.get("location")).toBe(`${url()}/sign-in?sso_error=failed`);
    // The right provider, but the code issued to another of its clients (another audience).
    const b = await start(email);
    const asOther = new URL(b.authorizationUrl!);
    asOther.searchParams.set("client_id", "other-app");
    const r2 = await b.jar.get(await atIdp(b.jar, idp, asOther.href, email));
    expect(r2.headers.get("location")).toBe(`${url()}/sign-in?sso_error=failed`);
    expect(await sessionsOf(email)).toHaveLength(0);
  });

  it("routes only verified domains, and never an email of a domain another workspace holds", async () => {
    const unverified = await ssoWorkspace({ verify: false });
    const nope = await start(`dan@${unverified.name}`);
    expect(nope.location).toBe(`${url()}/sign-in?sso_error=no_connection`);
    const unknown = await start(`dan@${domainName("nowhere")}`);
    expect(unknown.location).toBe(`${url()}/sign-in?sso_error=no_connection`);
    const invalid = await start("not-an-email");
    expect(invalid.location).toBe(`${url()}/sign-in?sso_error=invalid_email`);

    // Two workspaces on the same identity provider: it signs someone in as an email of the other's domain.
    const mine = await ssoWorkspace();
    const theirs = await ssoWorkspace();
    const eve = `eve@${theirs.name}`;
    await member(theirs.workspace.id, eve, "admin");
    await member(mine.workspace.id, `eve@${mine.name}`);
    const flow = await start(`eve@${mine.name}`);
    const res = await flow.jar.get(await atIdp(flow.jar, idp, flow.authorizationUrl!, eve));
    expect(res.headers.get("location")).toBe(`${url()}/sign-in?sso_error=email_not_covered`);
    expect(await sessionsOf(eve)).toHaveLength(0);
    // And an email the provider says it has not verified.
    const unverifiedEmail = await signIn(`eve@${mine.name}`, `eve@${mine.name}`, { email_verified: false });
    expect(unverifiedEmail.location).toBe(`${url()}/sign-in?sso_error=email_not_covered`);
  });

  it("admits only members unless the connection provisions just in time, and never whom SCIM deprovisioned", async () => {
    const { workspace, admin, name } = await ssoWorkspace();
    const bob = `bob@${name}`;
    const refused = await signIn(bob);
    expect(refused.location).toBe(`${url()}/sign-in?sso_error=not_member`);
    const db = await getDb();
    expect(await db.select().from(users).where(eq(users.email, bob))).toHaveLength(0);

    await saveSsoConnection(admin.actor, { issuer: idp.issuer, client_id: "agentdraft", just_in_time: true });
    const joined = await signIn(bob);
    expect(joined.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    const [row] = await db.select().from(members).where(and(eq(members.workspaceId, workspace.id), eq(members.email, bob)));
    expect(row).toMatchObject({ role: "viewer", userId: expect.stringMatching(/^usr_/) });
    expect((await actions(workspace.id)).find((a) => a.action === "member.joined")?.summary).toMatchObject({ via: "sso", role: "viewer" });

    // A member provisioned by SCIM (no sign-in identity yet) is linked to the SSO user.
    const [provisioned] = await db.insert(members).values({ id: newId("member"), workspaceId: workspace.id, email: `pat@${name}`, role: "approver" }).returning();
    await signIn(`pat@${name}`);
    const [pat] = await db.select().from(members).where(eq(members.id, provisioned!.id));
    expect(pat).toMatchObject({ role: "approver", userId: expect.stringMatching(/^usr_/) });

    const carol = `carol@${name}`;
    await db.insert(scimUsers).values({ id: newId("scimUser"), workspaceId: workspace.id, userName: carol, email: carol, active: false, memberId: newId("member") });
    expect((await signIn(carol)).location).toBe(`${url()}/sign-in?sso_error=not_member`);
  });

  it("when a domain requires SSO, refuses a passkey sign-in of its emails, and any passkey ceremony outside the person's own SSO session", async () => {
    const { workspace, admin, domain, name } = await ssoWorkspace();
    const email = `ida@${name}`;
    const signInWithPasskey = { type: "webauthn", userId: "usr_x" };
    const registering = { type: "webauthn" };
    const noSession = async () => undefined;
    expect(await passkeySignInAllowed({ email }, signInWithPasskey, noSession)).toBe(true);
    expect(await passkeySignInAllowed({ email }, registering, noSession)).toBe(true); // an invited newcomer, while SSO is optional
    await setSsoRequired(admin.actor, domain.id, true);
    expect(await passkeySignInAllowed({ email: email.toUpperCase() }, signInWithPasskey, noSession)).toBe(false);
    expect(await passkeySignInAllowed({ email: "ida@elsewhere.test" }, signInWithPasskey, noSession)).toBe(true);
    expect(await passkeySignInAllowed({ email: "ida@elsewhere.test" }, registering, noSession)).toBe(true);

    // Registering: refused without a session (an invitation, a stranger)...
    expect(await passkeySignInAllowed({ email }, registering, noSession)).toBe(false);
    // ...allowed in the session of Ida's own SSO sign-in (she enrols a passkey for approvals; the e2e story does it in Chromium)...
    const ida = await member(workspace.id, email);
    const flow = await signIn(email);
    expect(flow.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    expect(await passkeySignInAllowed({ email }, registering, async () => flow.sessionToken)).toBe(true);
    // In that session an assertion confirms (approvals' step-up), it signs no one in: allowed too.
    expect(await passkeySignInAllowed({ email }, { type: "webauthn", userId: ida.user.id }, async () => flow.sessionToken)).toBe(true);
    // ...refused in a session that began with a passkey, or in someone else's SSO session.
    const db = await getDb();
    const passkeySession = `passkey-session-${n}`;
    await db.insert(sessions).values({ sessionToken: passkeySession, userId: ida.user.id, expires: new Date(Date.now() + 3_600_000) });
    expect(await passkeySignInAllowed({ email }, registering, async () => passkeySession)).toBe(false);
    expect(await passkeySignInAllowed({ email }, { type: "webauthn", userId: ida.user.id }, async () => passkeySession)).toBe(false);
    await member(workspace.id, `joe@${name}`);
    const joe = await signIn(`joe@${name}`);
    expect(await passkeySignInAllowed({ email }, registering, async () => joe.sessionToken)).toBe(false);
    // An expired SSO session registers nothing.
    await db.update(sessions).set({ expires: new Date(Date.now() - 1000) }).where(eq(sessions.sessionToken, flow.sessionToken!));
    expect(await passkeySignInAllowed({ email }, registering, async () => flow.sessionToken)).toBe(false);

    await setSsoRequired(admin.actor, domain.id, false);
    expect(await passkeySignInAllowed({ email }, signInWithPasskey, noSession)).toBe(true);
    expect(await passkeySignInAllowed({ email }, registering, noSession)).toBe(true);
    // Removing the connection removes its domains: passkeys work again, and the domain is free.
    await setSsoRequired(admin.actor, domain.id, true);
    await deleteSsoConnection(admin.actor);
    expect(await passkeySignInAllowed({ email }, signInWithPasskey, noSession)).toBe(true);
    const other = await ssoWorkspace({ domain: name });
    expect(other.domain.name).toBe(name);
  });
});

describe("an invitation on an SSO domain", () => {
  /** An SSO workspace that does not provision just in time, its domain requiring SSO, and an admin who invites. */
  async function invitingWorkspace() {
    const sso = await ssoWorkspace();
    await setSsoRequired(sso.admin.actor, sso.domain.id, true);
    // As the Members page's action invites: asking whether the address is on a "require SSO" domain.
    const invite = async (email: string, role: "admin" | "approver" | "viewer" = "approver") =>
      (await createInvitation(sso.admin.member, { email, role }, url(), null, { ssoRequired: await ssoRequiredForEmail(email) })).invitation;
    return { ...sso, invite };
  }

  async function invitationRow(id: string) {
    return (await (await getDb()).select().from(invitations).where(eq(invitations.id, id)))[0]!;
  }

  async function membersNamed(workspaceId: string, email: string) {
    return (await getDb()).select().from(members).where(and(eq(members.workspaceId, workspaceId), sql`lower(${members.email}) = ${email}`));
  }

  it("is accepted by signing in with SSO: a member in the invited role, audited as the link's acceptance and the sign-in", async () => {
    const { workspace, name, invite } = await invitingWorkspace();
    const email = `ivy@${name}`;
    const invitation = await invite(email, "approver");
    // The mail sends them to their organisation's sign-in, not to creating a passkey first.
    const [mail] = await (await getDb()).select({ text: outboundMail.text }).from(outboundMail).where(and(eq(outboundMail.workspaceId, workspace.id), eq(outboundMail.kind, "invitation")));
    expect(mail!.text).toContain("signs in to AgentDraft with single sign-on");
    expect(mail!.text).not.toContain("create your passkey here");
    // The link cannot register a passkey on this domain (sso-gate.ts): signing in with SSO is the way in.
    expect(await passkeySignInAllowed({ email }, { type: "webauthn" }, async () => undefined)).toBe(false);
    const flow = await signIn(email.toUpperCase(), email);
    expect(flow.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    const [member] = await membersNamed(workspace.id, email);
    expect(member).toMatchObject({ role: "approver", userId: expect.stringMatching(/^usr_/) });
    expect(await authSession(flow.sessionToken!)).toMatchObject({ user: { email, id: member!.userId } });
    expect(await invitationRow(invitation.id)).toMatchObject({ acceptedAt: expect.any(Date), memberId: member!.id, revokedAt: null });
    const logged = await actions(workspace.id);
    expect(logged.filter((a) => a.action === "invitation.accepted").map((a) => a.summary)).toEqual([{ email, role: "approver", member_id: member!.id, email_proven: true, via: "sso" }]);
    expect(logged.filter((a) => a.action === "sso.signed_in").map((a) => (a.summary as { email: string }).email)).toEqual([email]);
    // Accepted once: not as a just-in-time viewer besides.
    expect(logged.filter((a) => a.action === "member.joined")).toEqual([]);
    // Signing in again finds the member; the used invitation plays no part.
    expect((await signIn(email)).location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    expect(await membersNamed(workspace.id, email)).toHaveLength(1);
  });

  it("admits no one by an expired or revoked invitation, another workspace's, or one to a person SCIM deprovisioned", async () => {
    const { workspace, admin, name, invite } = await invitingWorkspace();
    const db = await getDb();
    const expired = `eli@${name}`;
    const old = await invite(expired);
    await db.update(invitations).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitations.id, old.id));
    const revoked = `rex@${name}`;
    await revokeInvitation(admin.member, { invitation_id: (await invite(revoked)).id });
    // Invited to another workspace (no SSO there): not to this one.
    const elsewhere = await newWorkspace();
    const otherAdmin = await newMember(elsewhere.workspace.id, "admin");
    const stray = `sal@${name}`;
    await createInvitation(otherAdmin.member, { email: stray, role: "viewer" }, url(), null);
    // Deprovisioned by the identity provider (SCIM), invited meanwhile: the identity provider's decision stands.
    const gone = `gil@${name}`;
    const goneInvitation = await invite(gone);
    await db.insert(scimUsers).values({ id: newId("scimUser"), workspaceId: workspace.id, userName: gone, email: gone, active: false, memberId: newId("member") });
    for (const email of [expired, revoked, stray, gone]) {
      expect((await signIn(email)).location, email).toBe(`${url()}/sign-in?sso_error=not_member`);
      expect(await membersNamed(workspace.id, email)).toHaveLength(0);
      expect(await sessionsOf(email)).toHaveLength(0);
    }
    expect((await invitationRow(goneInvitation.id)).acceptedAt).toBeNull();
    expect((await actions(workspace.id)).filter((a) => a.action === "invitation.accepted")).toEqual([]);
  });

  it("racing callbacks of the same invited person: one member, the invitation accepted once, both signed in", async () => {
    const { workspace, name, invite } = await invitingWorkspace();
    const email = `rae@${name}`;
    // She has an account already (another workspace's member): nothing but the invitation orders the two sign-ins.
    await (await getDb()).insert(users).values({ id: newId("user"), email });
    const invitation = await invite(email, "viewer");
    // Two browsers (or two tabs that each started a sign-in) come back from the identity provider at once.
    const flows = [await start(email), await start(email)];
    const callbacks: string[] = [];
    for (const flow of flows) callbacks.push(await atIdp(flow.jar, idp, flow.authorizationUrl!, email));
    const { result: results, met } = await raceAtLock(["select id from invitations where id = $1 for update", [invitation.id]], '%from "invitations"%for update%', 2, () =>
      Promise.all(flows.map((flow, i) => flow.jar.get(callbacks[i]!))),
    );
    if (met !== null) expect(met, "both callbacks waited for the invitation at once").toBe(true);
    expect(results.map((r) => r.headers.get("location"))).toEqual([`${url()}${ENROL_PASSKEY_PATH}`, `${url()}${ENROL_PASSKEY_PATH}`]);
    const rows = await membersNamed(workspace.id, email);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.role).toBe("viewer");
    expect((await invitationRow(invitation.id)).memberId).toBe(rows[0]!.id);
    expect((await actions(workspace.id)).filter((a) => a.action === "invitation.accepted")).toHaveLength(1);
    expect(await sessionsOf(email)).toHaveLength(2);
  });
});

type JoseKey = CryptoKey;

describe("ID tokens openid-client refuses", () => {
  // A minimal provider whose token endpoint answers the ID token the test chose.
  let server: http.Server;
  let issuer = "";
  let good: { privateKey: JoseKey; kid: string };
  let rogue: { privateKey: JoseKey; kid: string };
  let nextToken: (nonce: string) => Promise<string> = async () => "";
  let nonce = "";
  beforeAll(async () => {
    const k1 = await generateKeyPair("RS256");
    const k2 = await generateKeyPair("RS256");
    good = { privateKey: k1.privateKey, kid: "good" };
    rogue = { privateKey: k2.privateKey, kid: "good" }; // same kid, another key: a forgery
    const jwk = { ...(await exportJWK(k1.publicKey)), kid: "good", alg: "RS256", use: "sig" };
    server = http.createServer(async (req, res) => {
      const path = new URL(req.url!, "http://x").pathname;
      const json = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (path === "/.well-known/openid-configuration") {
        return json({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ["code"], subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["RS256"] });
      }
      if (path === "/jwks") return json({ keys: [jwk] });
      if (path === "/token") {
        for await (const chunk of req) void chunk;
        return json({ access_token: "at", token_type: "Bearer", id_token: await nextToken(nonce) });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const token = (key: { privateKey: JoseKey; kid: string }, claims: Record<string, unknown>, exp: string | number = "5m") =>
    new SignJWT({ email_verified: true, ...claims }).setProtectedHeader({ alg: "RS256", kid: key.kid }).setIssuedAt().setExpirationTime(exp).sign(key.privateKey);

  it("a forged signature, another audience or issuer, an expired token or another nonce: no session", async () => {
    const { workspace, name } = await ssoWorkspace({ issuer });
    const email = `fay@${name}`;
    await member(workspace.id, email);
    const base = (n: string) => ({ iss: issuer, aud: "agentdraft", sub: "fay", email, nonce: n });
    const attempt = async (make: (nonce: string) => Promise<string>) => {
      nextToken = make;
      const flow = await start(email);
      const authUrl = new URL(flow.authorizationUrl!);
      nonce = authUrl.searchParams.get("nonce")!;
      const res = await flow.jar.get(`${url()}/sso/callback?code=the-code&state=${authUrl.searchParams.get("state")}`);
      return res.headers.get("location");
    };
    const refused = `${url()}/sign-in?sso_error=failed`;
    expect(await attempt((n) => token(rogue, base(n)))).toBe(refused);
    expect(await attempt((n) => token(good, { ...base(n), aud: "someone-else" }))).toBe(refused);
    expect(await attempt((n) => token(good, { ...base(n), iss: "http://127.0.0.1:1" }))).toBe(refused);
    expect(await attempt((n) => token(good, base(n), Math.floor(Date.now() / 1000) - 3600))).toBe(refused);
    expect(await attempt(() => token(good, base("another-nonce")))).toBe(refused);
    expect(await sessionsOf(email)).toHaveLength(0);
    // The same provider with a proper token signs in: the refusals above were the tokens'.
    expect(await attempt((n) => token(good, base(n)))).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    expect(await sessionsOf(email)).toHaveLength(1);
  });
});
