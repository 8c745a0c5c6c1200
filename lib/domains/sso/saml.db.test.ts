// SSO with SAML 2.0 per workspace (docs/sso.md): connections from IdP metadata, our SP metadata, and
// the whole sign-in over real HTTP against a real SAML identity provider (samlify on loopback).
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { WORKSPACE_COOKIE } from "../../platform/config/cookies";
import { auditEntries, invitations, members, scimUsers, sessions, ssoConnections, ssoSamlAssertions, ssoSamlRequests, users } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { CookieJar } from "../../../test/helpers/oidc-provider";
import { raceAtLock } from "../../../test/helpers/race-at-lock";
import { readPostForm, startSamlTestIdp, type Answer, type PostedResponse, type SamlTestIdp } from "../../../test/helpers/saml-idp";
import { resetEnvCache } from "../../platform/config/env";
import { newId } from "../../platform/ids";
import { agentDraftAdapter } from "../auth/adapter";
import { getSsoConnection, saveSamlConnection } from "./connections";
import { addSsoDomain, setSsoRequired, verificationRecordName, verificationRecordValue, verifySsoDomain, type TxtResolver } from "./domains";
import { ENROL_PASSKEY_PATH } from "./responses";
import { createInvitation } from "../invitations/create-invitation";
import { revokeInvitation } from "../invitations/revoke-invitation";

setTestEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32" });
const { url } = serveApiForTests();

let savedAuthUrl: string | undefined;
let idp: SamlTestIdp; // the workspace's identity provider
let rogue: SamlTestIdp; // claims the same entity id, signs with another key
beforeAll(async () => {
  savedAuthUrl = process.env.AUTH_URL;
  process.env.AUTH_URL = url();
  resetEnvCache();
  idp = await startSamlTestIdp();
  rogue = await startSamlTestIdp({ key: "rogue", entityId: idp.entityId });
});
afterAll(async () => {
  await idp?.close();
  await rogue?.close();
  if (savedAuthUrl === undefined) delete process.env.AUTH_URL;
  else process.env.AUTH_URL = savedAuthUrl;
  resetEnvCache();
});

const dns = new Map<string, string[][]>();
const resolver: TxtResolver = async (name) => dns.get(name) ?? [];

let n = 0;
const domainName = (base: string) => `${base}-saml-${process.pid}-${++n}.test`;

/** A workspace with an admin, a SAML connection to the test IdP, and a verified domain; the IdP trusts our SP metadata (read over HTTP). */
async function samlWorkspace(opts: { justInTime?: boolean; allowIdpInitiated?: boolean } = {}) {
  const { workspace } = await newWorkspace();
  const admin = await newMember(workspace.id, "admin");
  const connection = await saveSamlConnection(admin.actor, { metadata_xml: idp.metadataXml, just_in_time: opts.justInTime ?? false, allow_idp_initiated: opts.allowIdpInitiated ?? false });
  const name = domainName("acme");
  const domain = await addSsoDomain(admin.actor, { name });
  dns.set(verificationRecordName(name), [[verificationRecordValue(domain.verificationToken)]]);
  await verifySsoDomain(admin.actor, domain.id, resolver);
  const metadata = await fetch(`${url()}/sso/saml/${workspace.id}/metadata`);
  expect(metadata.status).toBe(200);
  const spMetadata = await metadata.text();
  idp.trust(spMetadata);
  rogue.trust(spMetadata);
  return { workspace, admin, connection, domain, name, entityId: `${url()}/sso/saml/${workspace.id}/metadata`, acs: `${url()}/sso/saml/${workspace.id}/acs`, spMetadata };
}

async function member(workspaceId: string, email: string) {
  const db = await getDb();
  const [user] = await db.insert(users).values({ id: newId("user"), email }).returning();
  await db.insert(members).values({ id: newId("member"), workspaceId, email, role: "viewer", userId: user!.id });
  return user!;
}

/** The person's browser: it keeps the SAML request cookie between /sso/start and the ACS. */
const browser = new CookieJar();

/** /sso/start: where it sends the browser (the IdP's SSO URL with a SAMLRequest). */
async function start(email: string, jar = browser): Promise<string> {
  const res = await jar.get(`${url()}/sso/start?email=${encodeURIComponent(email)}&next=${encodeURIComponent("/approvals")}`);
  expect(res.status).toBe(303);
  return res.headers.get("location")!;
}

/** The person at the IdP: it answers the browser an auto-submitting form for our ACS. */
async function atIdp(authorizationUrl: string, answer: Answer, via: SamlTestIdp = idp): Promise<PostedResponse> {
  via.answerNext(answer);
  const target = authorizationUrl.replace(idp.ssoUrl, via.ssoUrl);
  const res = await fetch(target);
  expect(res.status, await res.clone().text()).toBe(200);
  return readPostForm(await res.text());
}

/** The browser submits the IdP's form to our ACS. */
async function post(posted: PostedResponse, jar = browser) {
  const body = new URLSearchParams({ SAMLResponse: posted.SAMLResponse, ...(posted.RelayState ? { RelayState: posted.RelayState } : {}) });
  const res = await fetch(posted.acs, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", origin: "null", cookie: jar.header() }, body: body.toString() });
  jar.store(res);
  return { res, status: res.status, location: res.headers.get("location"), reason: res.headers.get("x-sso-error"), text: await res.text(), sessionToken: jar.cookies.get("authjs.session-token") };
}

async function sessionsOf(email: string) {
  const db = await getDb();
  return db.select({ token: sessions.sessionToken }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(sql`lower(${users.email}) = ${email}`);
}

async function actions(workspaceId: string) {
  const db = await getDb();
  return db.select({ action: auditEntries.action, summary: auditEntries.summary }).from(auditEntries).where(eq(auditEntries.workspaceId, workspaceId));
}

/** A refusal: a 4xx page saying why, and no session for anyone it names. */
async function expectRefused(result: Awaited<ReturnType<typeof post>>, status: number, reason: string, ...emails: string[]) {
  expect(result.status, result.text).toBe(status);
  expect(result.reason).toBe(reason);
  expect(result.res.headers.get("content-type")).toMatch(/text\/html/);
  expect(result.text).toContain("Sign-in refused");
  expect(result.res.headers.getSetCookie().filter((c) => c.includes("session-token"))).toEqual([]);
  for (const email of emails) expect(await sessionsOf(email)).toHaveLength(0);
}

const minutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe("a SAML connection", () => {
  it("is read from pasted metadata or its URL, audited, and our SP metadata names the ACS URL and entity id", async () => {
    const { workspace, admin, connection, entityId, acs, spMetadata } = await samlWorkspace();
    expect(connection).toMatchObject({ protocol: "saml", issuer: idp.entityId, samlSsoUrl: idp.ssoUrl, clientId: null, clientSecretSealed: null, samlAllowIdpInitiated: false });
    expect(connection.samlCertificates).toHaveLength(1);
    expect(connection.samlCertificates![0]).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(spMetadata).toContain(`entityID="${entityId}"`);
    expect(spMetadata).toContain(`Location="${acs}"`);
    expect(spMetadata).toContain('WantAssertionsSigned="true"');
    expect(spMetadata).toContain("nameid-format:emailAddress");
    // From its URL (through the SSRF guard), with IdP-initiated sign-in allowed.
    const byUrl = await saveSamlConnection(admin.actor, { metadata_url: idp.metadataUrl, allow_idp_initiated: true });
    expect(byUrl).toMatchObject({ id: connection.id, samlMetadataUrl: idp.metadataUrl, samlAllowIdpInitiated: true });
    const logged = await actions(workspace.id);
    expect(logged.filter((a) => a.action.startsWith("sso_connection.")).map((a) => [a.action, (a.summary as { protocol: string }).protocol])).toEqual([
      ["sso_connection.created", "saml"],
      ["sso_connection.updated", "saml"],
    ]);
    expect(logged.find((a) => a.action === "sso_connection.updated")!.summary).toMatchObject({ metadata_url: idp.metadataUrl, allow_idp_initiated: true, certificates: [expect.stringMatching(/^[0-9A-F:]+$/)] });
  });

  it("replaces an OIDC connection and keeps its domains; editing the switches alone keeps the stored metadata", async () => {
    const { workspace, admin, connection, name } = await samlWorkspace();
    const db = await getDb();
    // Stored as OIDC first (as a workspace that had it), then switched back to SAML by the form.
    await db.update(ssoConnections).set({ protocol: "oidc", clientId: "x", clientSecretSealed: "v1.sealed", samlSsoUrl: null, samlCertificates: null }).where(eq(ssoConnections.id, connection.id));
    const switched = await saveSamlConnection(admin.actor, { metadata_xml: idp.metadataXml });
    expect(switched).toMatchObject({ id: connection.id, protocol: "saml", clientId: null, clientSecretSealed: null });
    expect((await actions(workspace.id)).find((a) => (a.summary as { protocol_changed_from?: string }).protocol_changed_from === "oidc")).toBeTruthy();
    const edited = await saveSamlConnection(admin.actor, { just_in_time: true });
    expect(edited).toMatchObject({ issuer: idp.entityId, samlSsoUrl: idp.ssoUrl, samlCertificates: switched.samlCertificates, justInTime: true });
    // The domain still routes sign-ins, now to the SAML IdP.
    expect(await start(`kim@${name}`)).toMatch(new RegExp(`^${idp.ssoUrl}\\?SAMLRequest=`));
  });

  it("refuses metadata that is not an IdP's, has no certificate, or a URL inside the network", async () => {
    const { workspace } = await newWorkspace();
    const admin = await newMember(workspace.id, "admin");
    const refuse = (input: Parameters<typeof saveSamlConnection>[1], message: RegExp) => expect(saveSamlConnection(admin.actor, input)).rejects.toThrow(message);
    await refuse({ metadata_xml: "<not xml" }, /not well-formed|EntityDescriptor/);
    await refuse({ metadata_xml: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><SPSSODescriptor/></EntityDescriptor>' }, /IDPSSODescriptor/);
    await refuse({ metadata_xml: idp.metadataXml.replace(/<(\w+:)?KeyDescriptor[\s\S]*<\/(\w+:)?KeyDescriptor>/, "") }, /no signing certificate/);
    await refuse({ metadata_xml: idp.metadataXml, metadata_url: idp.metadataUrl }, /one of them/);
    await refuse({}, /one of them/);
    await refuse({ metadata_url: "http://127.0.0.2:9/metadata" }, /must be an https URL/);
    await refuse({ metadata_url: "https://127.0.0.2:9/metadata" }, /loopback|private/);
    expect(await getSsoConnection(workspace.id)).toBeNull();
  });
});

describe("signing in with SAML", () => {
  it("runs the whole SP-initiated flow: a session Auth.js accepts, audited with protocol saml, the request used up", async () => {
    const { workspace, name, acs, entityId } = await samlWorkspace();
    const email = `ada@${name}`;
    const ada = await member(workspace.id, email);
    const authorizationUrl = await start(email);
    expect(authorizationUrl.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).toBe(true);
    const posted = await atIdp(authorizationUrl, { email });
    expect(posted.acs).toBe(acs);
    const done = await post(posted);
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    expect(done.res.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))).toMatch(/HttpOnly; SameSite=Lax/);
    expect(await agentDraftAdapter(await getDb(), async () => null).getSessionAndUser!(done.sessionToken!)).toMatchObject({ user: { email, id: ada.id } });
    // Begun by SSO (a "require SSO" domain lets only such a session enrol a passkey), in the connection's workspace.
    const [session] = await (await getDb()).select({ via: sessions.signedInVia }).from(sessions).where(eq(sessions.sessionToken, done.sessionToken!));
    expect(session!.via).toBe("sso");
    expect(done.res.headers.getSetCookie().find((c) => c.startsWith(`${WORKSPACE_COOKIE}=`))).toContain(workspace.id);
    const signedIn = (await actions(workspace.id)).filter((a) => a.action === "sso.signed_in");
    expect(signedIn).toHaveLength(1);
    expect(signedIn[0]!.summary).toMatchObject({ email, protocol: "saml", issuer: idp.entityId, subject: email });
    const db = await getDb();
    const [connection] = await db.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, workspace.id));
    expect(await db.select().from(ssoSamlRequests).where(eq(ssoSamlRequests.connectionId, connection!.id))).toHaveLength(0);
    const [kept] = await db.select().from(ssoSamlAssertions).where(eq(ssoSamlAssertions.connectionId, connection!.id));
    expect(kept!.expiresAt.getTime()).toBeGreaterThan(Date.now());
    // A mail attribute serves when the NameID is not an email (Entra ID's default NameID, say).
    const bea = `bea@${name}`;
    await member(workspace.id, bea);
    const viaAttribute = await post(await atIdp(await start(bea), { email: "opaque-subject-id", nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent", attributes: { "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress": bea } }));
    expect(viaAttribute.status, viaAttribute.text).toBe(303);
    expect(await sessionsOf(bea)).toHaveLength(1);
    expect(entityId).toContain(workspace.id);
  });

  it("refuses an assertion signed by another key, or altered after signing", async () => {
    const { workspace, name } = await samlWorkspace();
    const email = `cy@${name}`;
    const eve = `eve@${name}`;
    await member(workspace.id, email);
    await member(workspace.id, eve);
    // The rogue IdP claims the workspace's IdP's entity id but holds another key.
    await expectRefused(await post(await atIdp(await start(email), { email }, rogue)), 400, "failed", email);
    // A genuine response, its NameID changed to another member's after signing.
    const genuine = await atIdp(await start(email), { email });
    const xml = Buffer.from(genuine.SAMLResponse, "base64").toString("utf8");
    expect(xml).toContain(`>${email}<`);
    const altered = Buffer.from(xml.replace(`>${email}<`, `>${eve}<`)).toString("base64");
    const refused = await post({ ...genuine, SAMLResponse: altered });
    await expectRefused(refused, 400, "failed", email, eve);
    expect(refused.text).toMatch(/signature/i);
  });

  it("accepts a response once: the same response posted again is refused", async () => {
    const { workspace, name } = await samlWorkspace();
    const email = `dee@${name}`;
    await member(workspace.id, email);
    const posted = await atIdp(await start(email), { email });
    expect((await post(posted)).status).toBe(303);
    await expectRefused(await post(posted), 400, "expired");
    expect(await sessionsOf(email)).toHaveLength(1);
  });

  it("accepts a response only in the browser that started the sign-in", async () => {
    const { workspace, name } = await samlWorkspace();
    const email = `hal@${name}`;
    await member(workspace.id, email);
    const mine = new CookieJar();
    const res = await mine.get(`${url()}/sso/start?email=${encodeURIComponent(email)}`);
    expect(res.headers.getSetCookie().join()).toMatch(/^agentdraft-saml-request=_\w+; Path=\/sso\/saml; Max-Age=600; HttpOnly; SameSite=None; Secure$/);
    const started = res.headers.get("location")!;
    const cookie = mine.cookies.get("agentdraft-saml-request");
    expect(mine.header()).toMatch(/^agentdraft-saml-request=_[0-9a-f]{40}$/);
    const posted = await atIdp(started, { email });
    // Another browser (an attacker posting their own response to a victim), or one that started another sign-in.
    await expectRefused(await post(posted, new CookieJar()), 400, "expired", email);
    const other = new CookieJar();
    await start(email, other);
    await expectRefused(await post(posted, other), 400, "expired", email);
    // The browser that started it signs in, and its cookie is cleared.
    const done = await post(posted, mine);
    expect(done.status, done.text).toBe(303);
    expect(cookie).toBeTruthy();
    expect(mine.cookies.has("agentdraft-saml-request")).toBe(false);
  });

  it("refuses an expired assertion, another audience, and another recipient or destination", async () => {
    const { workspace, name } = await samlWorkspace();
    const other = await samlWorkspace();
    const email = `fay@${name}`;
    await member(workspace.id, email);
    const attempt = async (values: Answer["values"]) => post(await atIdp(await start(email), { email, values }));
    const past = { IssueInstant: minutes(-20), ConditionsNotBefore: minutes(-20) };
    const expired = await attempt({ ...past, ConditionsNotOnOrAfter: minutes(-10), SubjectConfirmationDataNotOnOrAfter: minutes(-10) });
    await expectRefused(expired, 400, "failed", email);
    expect(expired.text).toMatch(/expired/i);
    // Expired by its Conditions only, or by its SubjectConfirmationData only: each is enough.
    await expectRefused(await attempt({ ...past, ConditionsNotOnOrAfter: minutes(-10) }), 400, "failed", email);
    await expectRefused(await attempt({ SubjectConfirmationDataNotOnOrAfter: minutes(-10) }), 400, "failed", email);
    // Not yet valid (beyond the clock skew).
    await expectRefused(await attempt({ ConditionsNotBefore: minutes(10) }), 400, "failed", email);
    const audience = await attempt({ Audience: other.entityId });
    await expectRefused(audience, 400, "failed", email);
    expect(audience.text).toMatch(/audience/i);
    const recipient = await attempt({ SubjectRecipient: other.acs });
    await expectRefused(recipient, 400, "failed", email);
    expect(recipient.text).toMatch(/Recipient/);
    const destination = await attempt({ Destination: other.acs });
    await expectRefused(destination, 400, "failed", email);
    expect(destination.text).toMatch(/Destination/);
    // An assertion for this workspace posted to another's ACS.
    const elsewhere = await atIdp(await start(email), { email });
    await expectRefused(await post({ ...elsewhere, acs: other.acs }), 400, "failed", email);
    // An answer to a request we never sent.
    await expectRefused(await attempt({ InResponseTo: "_not-a-request-of-ours" }), 400, "expired", email);
    // After all that, a proper answer signs in: the refusals were the assertions'.
    expect((await post(await atIdp(await start(email), { email }))).status).toBe(303);
  });

  it("refuses an unsolicited (IdP-initiated) response by default; allowed, it is still accepted once", async () => {
    const { workspace, admin, name, entityId } = await samlWorkspace();
    const email = `gus@${name}`;
    await member(workspace.id, email);
    const unsolicited = await idp.unsolicited(entityId, { email });
    expect(Buffer.from(unsolicited.SAMLResponse, "base64").toString()).not.toContain("InResponseTo");
    await expectRefused(await post(unsolicited), 403, "unsolicited", email);
    // Wrapped in a response that claims to answer a request of ours (outside the signed assertion): refused too.
    const requestId = /ID="([^"]+)"/.exec(inflateRawSync(Buffer.from(new URL(await start(email)).searchParams.get("SAMLRequest")!, "base64")).toString())![1]!;
    const wrapped = Buffer.from(Buffer.from(unsolicited.SAMLResponse, "base64").toString().replace("<samlp:Response ", `<samlp:Response InResponseTo="${requestId}" `)).toString("base64");
    const claimed = await post({ ...unsolicited, SAMLResponse: wrapped });
    await expectRefused(claimed, 400, "failed", email);
    expect(claimed.text).toMatch(/does not answer the request/);
    await saveSamlConnection(admin.actor, { metadata_xml: idp.metadataXml, allow_idp_initiated: true });
    const allowed = await idp.unsolicited(entityId, { email });
    const done = await post(allowed);
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    await expectRefused(await post(allowed), 400, "replayed");
    expect(await sessionsOf(email)).toHaveLength(1);
  });

  it("refuses an email outside the connection's verified domains, and a person who is not a member", async () => {
    const mine = await samlWorkspace();
    const theirs = await samlWorkspace();
    const eve = `eve@${theirs.name}`;
    await member(theirs.workspace.id, eve);
    await member(mine.workspace.id, `eve@${mine.name}`);
    // The IdP signs someone in as an email of a domain another workspace holds, or of no verified domain.
    await expectRefused(await post(await atIdp(await start(`eve@${mine.name}`), { email: eve })), 403, "email_not_covered", eve);
    const stranger = `zed@${domainName("unverified")}`;
    await expectRefused(await post(await atIdp(await start(`eve@${mine.name}`), { email: stranger })), 403, "email_not_covered", stranger);
    // Not a member, and the connection does not provision just in time.
    const bob = `bob@${mine.name}`;
    await expectRefused(await post(await atIdp(await start(bob), { email: bob })), 403, "not_member", bob);
  });

  it("answers 404 at the ACS of a workspace without a SAML connection", async () => {
    const { workspace } = await newWorkspace();
    const res = await fetch(`${url()}/sso/saml/${workspace.id}/acs`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "SAMLResponse=PHg%2B" });
    expect(res.status).toBe(404);
    expect((await fetch(`${url()}/sso/saml/not-a-workspace/metadata`)).status).toBe(404);
  });
});

describe("an invitation on a SAML domain", () => {
  /** A SAML workspace that does not provision just in time, its domain requiring SSO, and an admin who invites. */
  async function invitingWorkspace() {
    const saml = await samlWorkspace();
    await setSsoRequired(saml.admin.actor, saml.domain.id, true);
    const invite = async (email: string, role: "admin" | "approver" | "viewer" = "approver") => (await createInvitation(saml.admin.member, { email, role }, url(), null)).invitation;
    return { ...saml, invite };
  }

  async function invitationRow(id: string) {
    return (await (await getDb()).select().from(invitations).where(eq(invitations.id, id)))[0]!;
  }

  async function membersNamed(workspaceId: string, email: string) {
    return (await getDb()).select().from(members).where(sql`${members.workspaceId} = ${workspaceId} and lower(${members.email}) = ${email}`);
  }

  it("is accepted by signing in with SAML: a member in the invited role, audited as the link's acceptance and the sign-in", async () => {
    const { workspace, name, invite } = await invitingWorkspace();
    const email = `ivy@${name}`;
    const invitation = await invite(email, "admin");
    const done = await post(await atIdp(await start(email), { email, attributes: { displayName: "Ivy Invited" } }));
    expect(done.status, done.text).toBe(303);
    expect(done.location).toBe(`${url()}${ENROL_PASSKEY_PATH}`);
    const [member] = await membersNamed(workspace.id, email);
    expect(member).toMatchObject({ role: "admin", name: "Ivy Invited", userId: expect.stringMatching(/^usr_/) });
    expect(await agentDraftAdapter(await getDb(), async () => null).getSessionAndUser!(done.sessionToken!)).toMatchObject({ user: { email, id: member!.userId } });
    expect(await invitationRow(invitation.id)).toMatchObject({ acceptedAt: expect.any(Date), memberId: member!.id });
    const logged = await actions(workspace.id);
    expect(logged.filter((a) => a.action === "invitation.accepted").map((a) => a.summary)).toEqual([{ email, role: "admin", member_id: member!.id, email_proven: true, via: "sso" }]);
    expect(logged.filter((a) => a.action === "sso.signed_in").map((a) => a.summary)).toEqual([expect.objectContaining({ email, protocol: "saml" })]);
    expect(logged.filter((a) => a.action === "member.joined")).toEqual([]);
  });

  it("admits no one by an expired or revoked invitation, or one to a person SCIM deprovisioned", async () => {
    const { workspace, admin, name, invite } = await invitingWorkspace();
    const db = await getDb();
    const expired = `eli@${name}`;
    const old = await invite(expired);
    await db.update(invitations).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitations.id, old.id));
    const revoked = `rex@${name}`;
    await revokeInvitation(admin.member, { invitation_id: (await invite(revoked)).id });
    const gone = `gil@${name}`;
    const goneInvitation = await invite(gone);
    await db.insert(scimUsers).values({ id: newId("scimUser"), workspaceId: workspace.id, userName: gone, email: gone, active: false, memberId: newId("member") });
    for (const email of [expired, revoked, gone]) {
      await expectRefused(await post(await atIdp(await start(email), { email })), 403, "not_member", email);
      expect(await membersNamed(workspace.id, email)).toHaveLength(0);
    }
    expect((await invitationRow(goneInvitation.id)).acceptedAt).toBeNull();
    expect((await actions(workspace.id)).filter((a) => a.action === "invitation.accepted")).toEqual([]);
  });

  it("racing ACS posts of the same invited person: one member, the invitation accepted once, both signed in", async () => {
    const { workspace, name, invite } = await invitingWorkspace();
    const email = `rae@${name}`;
    // She has an account already (another workspace's member): nothing but the invitation orders the two sign-ins.
    await (await getDb()).insert(users).values({ id: newId("user"), email });
    const invitation = await invite(email, "viewer");
    // Two browsers that each started a sign-in post their (distinct) responses at once.
    const jars = [new CookieJar(), new CookieJar()];
    const posted: PostedResponse[] = [];
    for (const jar of jars) posted.push(await atIdp(await start(email, jar), { email }));
    const { result: results, met } = await raceAtLock(["select id from invitations where id = $1 for update", [invitation.id]], '%from "invitations"%for update%', 2, () =>
      Promise.all(jars.map((jar, i) => post(posted[i]!, jar))),
    );
    if (met !== null) expect(met, "both posts waited for the invitation at once").toBe(true);
    expect(results.map((r) => [r.status, r.location])).toEqual([
      [303, `${url()}${ENROL_PASSKEY_PATH}`],
      [303, `${url()}${ENROL_PASSKEY_PATH}`],
    ]);
    const rows = await membersNamed(workspace.id, email);
    expect(rows).toHaveLength(1);
    expect((await invitationRow(invitation.id)).memberId).toBe(rows[0]!.id);
    expect((await actions(workspace.id)).filter((a) => a.action === "invitation.accepted")).toHaveLength(1);
    expect(await sessionsOf(email)).toHaveLength(2);
  });
});
