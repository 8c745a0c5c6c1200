// SCIM 2.0 at /scim/v2 over real HTTP, as Okta and Microsoft Entra ID call it: the requests each
// sends to create, find, replace, patch and delete people and groups; racing creates; and what
// deprovisioning ends (sessions, live streams, pending votes) and keeps (past decisions, the audit chain).
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { approvalDecisions, auditEntries, members, scimTokens, scimUsers, sessions, users } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { operatorActor } from "../../platform/actor";
import { newId } from "../../platform/ids";
import { verifyChain } from "../../platform/audit/verify-chain";
import { sealBeforeRead } from "../../platform/audit/seal-chain";
import { createApproval } from "../approvals/create-approval";
import { decideApproval } from "../approvals/decide-approval";
import { openLiveChannel } from "../events/live-channel";
import { membershipsOfUser } from "../members";
import { createScimToken, revokeScimToken } from "./tokens";
import { runCli } from "../../../cli/main";

// Heartbeats a minute apart: a live stream that ends within the test's wait ended because its member went.
setTestEnv({ EVENTS_HEARTBEAT_SECONDS: "60", EVENTS_POLL_INTERVAL_MS: "200", EVENTS_STREAM_MAX_SECONDS: "120" });
const { api } = serveApiForTests();

const SCIM = "application/scim+json";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
let n = 0;
const address = (who: string) => `${who}-${process.pid}-${++n}@corp.test`;

/** A workspace and its identity provider's SCIM client. */
async function provider() {
  const { workspace } = await newWorkspace();
  const { token, row } = await createScimToken(operatorActor(workspace.id), { name: "idp" });
  const call = (method: string, path: string, body?: unknown) =>
    api(`/scim/v2${path}`, { method, key: token, ...(body !== undefined ? { rawBody: JSON.stringify(body), headers: { "content-type": SCIM } } : {}) });
  return { workspace, token, tokenRow: row, call };
}

async function auditActions(workspaceId: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspaceId)).orderBy(auditEntries.at, auditEntries.id);
  return rows.map((r) => r.action);
}

async function memberOf(memberId: string) {
  const db = await getDb();
  return (await db.select().from(members).where(eq(members.id, memberId)))[0];
}

describe("the SCIM token", () => {
  it("is required, stored hashed, refused once revoked; errors are SCIM error documents", async () => {
    const { workspace, token, tokenRow, call } = await provider();
    const none = await api("/scim/v2/Users");
    expect(none.status).toBe(401);
    expect(none.headers.get("content-type")).toBe(SCIM);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(none.json).toMatchObject({ schemas: [ERROR], status: "401" });
    expect((await api("/scim/v2/Users", { key: `ad_scim_${"A".repeat(43)}` })).status).toBe(401);
    expect((await api("/scim/v2/Users", { key: (await newKey(workspace.id)).key })).status).toBe(401); // an API key is no SCIM token

    const db = await getDb();
    const [stored] = await db.select().from(scimTokens).where(eq(scimTokens.id, tokenRow.id));
    expect(stored!.hash).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(token.slice(16));
    expect((await call("GET", "/Users")).status).toBe(200);
    expect((await db.select().from(scimTokens).where(eq(scimTokens.id, tokenRow.id)))[0]!.lastUsedAt).not.toBeNull();

    await revokeScimToken(operatorActor(workspace.id), tokenRow.id);
    const revoked = await call("GET", "/Users");
    expect(revoked.status).toBe(401);
    expect(revoked.json.detail).toMatch(/revoked/);
    expect(await auditActions(workspace.id)).toEqual(expect.arrayContaining(["scim_token.created", "scim_token.revoked"]));
  });

  it("is created (printed once) and revoked by the operator CLI; a sixth live one is refused", async () => {
    const { workspace } = await newWorkspace();
    const out: string[] = [];
    const sink = { write: (text: string) => out.push(text) };
    expect(await runCli(["scim-token", "create", "--workspace", workspace.id, "--name", "Okta", "--json"], sink, sink)).toBe(0);
    const created = JSON.parse(out.join(""));
    expect(created).toMatchObject({ object: "scim_token", name: "Okta", token: expect.stringMatching(/^ad_scim_[A-Za-z0-9_-]{43}$/) });
    expect((await api("/scim/v2/Users", { key: created.token })).status).toBe(200);
    out.length = 0;
    expect(await runCli(["scim-token", "revoke", "--workspace", workspace.id, "--id", created.id, "--json"], sink, sink)).toBe(0);
    expect((await api("/scim/v2/Users", { key: created.token })).status).toBe(401);
    for (let i = 0; i < 5; i++) await createScimToken(operatorActor(workspace.id), {});
    await expect(createScimToken(operatorActor(workspace.id), {})).rejects.toMatchObject({ status: 409 });
  });

  it("reaches only its own workspace", async () => {
    const a = await provider();
    const b = await provider();
    const created = await a.call("POST", "/Users", { schemas: [USER], userName: address("iso") });
    expect(created.status).toBe(201);
    expect((await b.call("GET", `/Users/${created.json.id}`)).status).toBe(404);
    expect((await b.call("PATCH", `/Users/${created.json.id}`, { Operations: [{ op: "replace", value: { active: false } }] })).status).toBe(404);
    expect((await b.call("DELETE", `/Users/${created.json.id}`)).status).toBe(404);
    expect((await b.call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${created.json.userName}"`)}`)).json.totalResults).toBe(0);
    expect((await a.call("GET", `/Users/${created.json.id}`)).status).toBe(200);
  });
});

describe("Okta's requests", () => {
  it("create, find by userName, replace, deactivate and reactivate, group push, delete", async () => {
    const { workspace, call } = await provider();
    const email = address("okta");
    const filter = (f: string) => `/Users?filter=${encodeURIComponent(f)}&startIndex=1&count=100`;
    // Okta looks the person up first.
    const missing = await call("GET", filter(`userName eq "${email}"`));
    expect(missing.status).toBe(200);
    expect(missing.headers.get("content-type")).toBe(SCIM);
    expect(missing.json).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

    const created = await call("POST", "/Users", {
      schemas: [USER],
      userName: email,
      name: { givenName: "Grace", familyName: "Hopper" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Grace Hopper",
      locale: "en-US",
      externalId: "00u1okta",
      groups: [],
      password: "ignored-secret",
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ schemas: [USER], userName: email, active: true, externalId: "00u1okta", name: { givenName: "Grace", familyName: "Hopper" }, emails: [{ value: email, primary: true }] });
    expect(created.json.meta).toMatchObject({ resourceType: "User", location: expect.stringMatching(new RegExp(`/scim/v2/Users/${created.json.id}$`)) });
    expect(created.text).not.toContain("ignored-secret");
    const id: string = created.json.id;
    const db = await getDb();
    const [link] = await db.select().from(scimUsers).where(eq(scimUsers.id, id));
    expect(await memberOf(link!.memberId)).toMatchObject({ workspaceId: workspace.id, email, name: "Grace Hopper", role: "viewer" });

    const found = await call("GET", filter(`userName eq "${email.toUpperCase()}"`)); // userName is not case-exact
    expect(found.json).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    expect((await call("GET", `/Users/${id}`)).json).toMatchObject({ id, userName: email });

    const replaced = await call("PUT", `/Users/${id}`, { schemas: [USER], id, userName: email, name: { givenName: "Grace B.", familyName: "Hopper" }, emails: [{ primary: true, value: email, type: "work" }], active: true });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ name: { givenName: "Grace B." } });
    expect(replaced.json.displayName).toBeUndefined(); // PUT replaces: absent attributes are cleared
    expect((await memberOf(link!.memberId))!.name).toBe("Grace B. Hopper");

    const off = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] });
    expect(off.status).toBe(200);
    expect(off.json.active).toBe(false);
    expect(await memberOf(link!.memberId)).toBeUndefined();
    const on = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: true } }] });
    expect(on.json.active).toBe(true);
    expect(await memberOf(link!.memberId)).toMatchObject({ id: link!.memberId, email, role: "viewer" });

    // Group push: the group, then its members, then one removed.
    const group = await call("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "agentdraft-admin", members: [] });
    expect(group.status).toBe(201);
    expect(group.json).toMatchObject({ displayName: "agentdraft-admin", members: [] });
    const add = await call("PATCH", `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: id, display: email }] }] });
    expect(add.status).toBe(204);
    expect((await memberOf(link!.memberId))!.role).toBe("admin");
    expect((await call("GET", `/Users/${id}`)).json.groups).toEqual([expect.objectContaining({ value: group.json.id, display: "agentdraft-admin" })]);
    expect((await call("GET", `/Groups/${group.json.id}`)).json.members).toEqual([expect.objectContaining({ value: id })]);
    const remove = await call("PATCH", `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${id}"]` }] });
    expect(remove.status).toBe(204);
    expect((await memberOf(link!.memberId))!.role).toBe("viewer");
    const renamed = await call("PATCH", `/Groups/${group.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { id: group.json.id, displayName: "Ops admins" } }] });
    expect(renamed.status).toBe(204);
    expect((await call("GET", `/Groups/${group.json.id}`)).json.displayName).toBe("Ops admins");

    expect((await call("DELETE", `/Users/${id}`)).status).toBe(204);
    const gone = await call("GET", `/Users/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ schemas: [ERROR], status: "404" });
    expect(await memberOf(link!.memberId)).toBeUndefined();
    expect((await call("DELETE", `/Groups/${group.json.id}`)).status).toBe(204);

    expect(await auditActions(workspace.id)).toEqual(
      expect.arrayContaining([
        "scim.user_provisioned",
        "scim.user_updated",
        "scim.user_deactivated",
        "scim.user_reactivated",
        "scim.group_created",
        "scim.group_updated",
        "member.role_changed",
        "scim.user_deleted",
        "scim.group_deleted",
      ]),
    );
    await sealBeforeRead(workspace.id);
    expect((await verifyChain(workspace.id)).valid).toBe(true);
  });
});

describe("Entra ID's requests", () => {
  it("probe, create with the enterprise extension, find by externalId, capitalised PATCH ops with string booleans, group membership, delete", async () => {
    const { call } = await provider();
    // Entra ID first checks with a random userName that nothing matches.
    const probe = await call("GET", `/Users?filter=${encodeURIComponent('userName eq "5c1a1d2b-0000-4e3f-a8b1-0c0ffee00000"')}`);
    expect(probe.json).toMatchObject({ totalResults: 0, Resources: [] });

    const email = address("entra");
    const created = await call("POST", "/Users", {
      schemas: [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "a1b2c3",
      userName: email,
      active: true,
      addresses: [{ primary: false, type: "work", country: "NL" }],
      displayName: "Alan Turing",
      emails: [{ primary: true, type: "work", value: email }],
      meta: { resourceType: "User" },
      name: { formatted: "Alan Turing", familyName: "Turing", givenName: "Alan" },
      title: "Engineer",
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Ops", manager: { value: "m-1" } },
    });
    expect(created.status).toBe(201);
    const id: string = created.json.id;
    const db = await getDb();
    const memberId = (await db.select().from(scimUsers).where(eq(scimUsers.id, id)))[0]!.memberId;
    expect((await call("GET", `/Users?filter=${encodeURIComponent('externalId eq "a1b2c3"')}`)).json).toMatchObject({ totalResults: 1, Resources: [{ id, externalId: "a1b2c3" }] });

    const newEmail = address("entra-renamed");
    const patched = await call("PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: "displayName", value: "Alan M. Turing" },
        { op: "Replace", path: "name.givenName", value: "Alan M." },
        { op: "Add", path: 'emails[type eq "work"].value', value: newEmail },
        { op: "Replace", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Research" },
        { op: "Add", path: "title", value: "Fellow" },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ displayName: "Alan M. Turing", name: { givenName: "Alan M.", familyName: "Turing" }, emails: [{ value: newEmail }] });
    expect(await memberOf(memberId)).toMatchObject({ email: newEmail, name: "Alan M. Turing" });

    const off = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(off.json.active).toBe(false);
    expect(await memberOf(memberId)).toBeUndefined();
    const on = await call("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", value: { active: "True", "name.familyName": "Turing-Smith" } }] });
    expect(on.json).toMatchObject({ active: true, name: { familyName: "Turing-Smith" } });
    expect(await memberOf(memberId)).toMatchObject({ email: newEmail });

    const group = await call("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], externalId: "g-1", displayName: "AgentDraft-Approver", members: [] });
    expect(group.status).toBe(201);
    const listed = await call("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "agentdraft-approver"')}`);
    expect(listed.json).toMatchObject({ totalResults: 1, Resources: [{ id: group.json.id }] });
    expect(listed.json.Resources[0].members).toBeUndefined();
    const gid: string = group.json.id;
    expect((await call("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] })).status).toBe(204);
    expect((await memberOf(memberId))!.role).toBe("approver");
    // Adding again changes nothing; an unknown id is refused.
    expect((await call("PATCH", `/Groups/${gid}`, { Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] })).status).toBe(204);
    const unknown = await call("PATCH", `/Groups/${gid}`, { Operations: [{ op: "Add", path: "members", value: [{ value: "scimu_nobody" }] }] });
    expect(unknown).toMatchObject({ status: 400, json: { scimType: "invalidValue", status: "400" } });
    expect((await call("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }] })).status).toBe(204);
    expect((await memberOf(memberId))!.role).toBe("viewer");
    expect((await call("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "displayName", value: "Approvers (old)" }] })).status).toBe(204);
    expect((await call("GET", `/Groups/${gid}`)).json).toMatchObject({ displayName: "Approvers (old)", externalId: "g-1" });

    expect((await call("DELETE", `/Users/${id}`)).status).toBe(204);
    expect((await call("GET", `/Users/${id}`)).status).toBe(404);
  });
});

describe("roles from groups", () => {
  it("decide once the workspace has a role group, and stay as they are when the last one goes; an inactive User activated takes over a member invited meanwhile", async () => {
    const { workspace, call } = await provider();
    const group = await call("POST", "/Groups", { displayName: "agentdraft-approver" });
    const admin = await newMember(workspace.id, "admin", address("adm"));
    const created = await call("POST", "/Users", { userName: admin.member.email });
    expect(created.status).toBe(201);
    expect((await memberOf(admin.member.id))!.role).toBe("viewer"); // taken over, in no role group
    expect((await call("PATCH", `/Groups/${group.json.id}`, { Operations: [{ op: "add", path: "members", value: [{ value: created.json.id }] }] })).status).toBe(204);
    expect((await memberOf(admin.member.id))!.role).toBe("approver");
    expect((await call("DELETE", `/Groups/${group.json.id}`)).status).toBe(204);
    expect((await memberOf(admin.member.id))!.role).toBe("approver");
    const ordinary = await call("POST", "/Groups", { displayName: "Engineering", members: [{ value: created.json.id }] });
    expect(ordinary.status).toBe(201);
    expect((await memberOf(admin.member.id))!.role).toBe("approver");

    const later = address("later");
    const inactive = await call("POST", "/Users", { userName: later, active: false });
    expect(inactive.json.active).toBe(false);
    const db = await getDb();
    expect(await db.select().from(members).where(and(eq(members.workspaceId, workspace.id), eq(members.email, later)))).toEqual([]);
    const invited = await newMember(workspace.id, "approver", later);
    const on = await call("PATCH", `/Users/${inactive.json.id}`, { Operations: [{ op: "replace", path: "active", value: true }] });
    expect(on.status).toBe(200);
    expect((await db.select().from(scimUsers).where(eq(scimUsers.id, inactive.json.id)))[0]!.memberId).toBe(invited.member.id);
    expect((await memberOf(invited.member.id))!.role).toBe("approver");
  });
});

describe("a role group's change", () => {
  it("withdraws the votes on pending approvals of someone it moves below approver, audited with via scim_groups", async () => {
    const { workspace, call } = await provider();
    const created = await call("POST", "/Users", { userName: address("voter") });
    const memberId = (await (await getDb()).select().from(scimUsers).where(eq(scimUsers.id, created.json.id)))[0]!.memberId;
    const group = await call("POST", "/Groups", { displayName: "agentdraft-approver", members: [{ value: created.json.id }] });
    expect((await memberOf(memberId))!.role).toBe("approver");
    const { row: key } = await newKey(workspace.id);
    const pending = await createApproval({ type: "key", workspaceId: workspace.id, keyId: key.id, agentId: null }, { summary: "Refund V-1", evidence: { order: "V-1" }, required_approvals: 2 });
    await decideApproval({ type: "member", workspaceId: workspace.id, memberId }, pending.id, "approve", null);

    expect((await call("PATCH", `/Groups/${group.json.id}`, { Operations: [{ op: "Remove", path: "members", value: [{ value: created.json.id }] }] })).status).toBe(204);
    expect((await memberOf(memberId))!.role).toBe("viewer");
    const db = await getDb();
    expect(await db.select().from(approvalDecisions).where(eq(approvalDecisions.memberId, memberId))).toEqual([]);
    const changes = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "member.role_changed"))).orderBy(auditEntries.at, auditEntries.id);
    expect(changes.map((c) => c.summary)).toEqual([
      expect.objectContaining({ from: "viewer", to: "approver", via: "scim_groups", votes_withdrawn_from: [] }),
      expect.objectContaining({ from: "approver", to: "viewer", via: "scim_groups", votes_withdrawn_from: [pending.id] }),
    ]);
  });
});

describe("lists and errors", () => {
  it("pages by startIndex and count with totalResults", async () => {
    const { call } = await provider();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await call("POST", "/Users", { userName: address(`page${i}`) })).json.id);
    const page = await call("GET", "/Users?startIndex=6&count=4");
    expect(page.json).toMatchObject({ totalResults: 12, startIndex: 6, itemsPerPage: 4 });
    expect(page.json.Resources.map((r: { id: string }) => r.id)).toEqual(ids.slice(5, 9));
    expect((await call("GET", "/Users?startIndex=11&count=10")).json.Resources.map((r: { id: string }) => r.id)).toEqual(ids.slice(10));
    expect((await call("GET", "/Users?count=0")).json).toMatchObject({ totalResults: 12, itemsPerPage: 0, Resources: [] });
    expect((await call("GET", "/Users?startIndex=0&count=1")).json).toMatchObject({ startIndex: 1, Resources: [{ id: ids[0] }] });
    expect((await call("GET", "/Users?count=ten")).json).toMatchObject({ status: "400", scimType: "invalidValue" });
  });

  it("answers bad input with the RFC's scimType", async () => {
    const { call, token } = await provider();
    const email = address("dup");
    expect((await call("POST", "/Users", { userName: email })).status).toBe(201);
    const dup = await call("POST", "/Users", { userName: email.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.headers.get("content-type")).toBe(SCIM);
    expect(dup.json).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
    expect((await call("GET", `/Users?filter=${encodeURIComponent('userName sw "a"')}`)).json).toMatchObject({ status: "400", scimType: "invalidFilter" });
    expect((await call("GET", `/Users?filter=${encodeURIComponent('title eq "a"')}`)).json).toMatchObject({ status: "400", scimType: "invalidFilter" });
    expect((await call("POST", "/Users", { userName: "no-email" })).json).toMatchObject({ status: "400", scimType: "invalidValue" });
    const malformed = await api("/scim/v2/Users", { method: "POST", key: token, rawBody: "{not json", headers: { "content-type": SCIM } });
    expect(malformed.json).toMatchObject({ status: "400", scimType: "invalidSyntax" });
    const huge = await api("/scim/v2/Users", { method: "POST", key: token, rawBody: JSON.stringify({ userName: address("big"), title: "x".repeat(1_100_000) }), headers: { "content-type": SCIM } });
    expect(huge.status).toBe(413);
    expect(huge.json).toMatchObject({ schemas: [ERROR], status: "413" });
    expect((await call("PATCH", "/Users/scimu_missing", { Operations: [{ op: "replace", value: { active: false } }] })).json).toMatchObject({ status: "404" });
    const group = await call("POST", "/Groups", { displayName: "Team" });
    expect((await call("POST", "/Groups", { displayName: "team" })).json).toMatchObject({ status: "409", scimType: "uniqueness" });
    expect((await call("PATCH", `/Groups/${group.json.id}`, { Operations: [{ op: "Add", path: "members[value eq \"x\"]", value: [] }] })).json).toMatchObject({ status: "400", scimType: "invalidPath" });
    expect((await call("GET", "/ServiceProviderConfig")).json).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
  });
});

describe("racing creates of one userName", () => {
  it("one wins with 201, the others get 409 uniqueness; one person, one member", async () => {
    const { workspace, call } = await provider();
    const email = address("race");
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call("POST", "/Users", { userName: i % 2 ? email : email.toUpperCase(), emails: [{ value: email, primary: true }] })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.json).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
    const db = await getDb();
    expect(await db.select().from(scimUsers).where(eq(scimUsers.workspaceId, workspace.id))).toHaveLength(1);
    expect(await db.select().from(members).where(and(eq(members.workspaceId, workspace.id), sql`lower(${members.email}) = ${email}`))).toHaveLength(1);
  });
});

describe("deprovisioning", () => {
  /** Someone invited before SSO: a member with an account, a session and an open live page. */
  async function signedInMember(workspaceId: string, role: "admin" | "approver" | "viewer" | "owner") {
    const db = await getDb();
    const email = address(role);
    const [user] = await db.insert(users).values({ id: newId("user"), email }).returning();
    const token = randomBytes(16).toString("hex");
    await db.insert(sessions).values({ sessionToken: token, userId: user!.id, expires: new Date(Date.now() + 86_400_000) });
    const { member } = await newMember(workspaceId, role, email);
    await db.update(members).set({ userId: user!.id }).where(eq(members.id, member.id));
    return { user: user!, member, token, email };
  }

  it("ends the person's sessions and live stream at once, withdraws pending votes, keeps past decisions and the audit chain", async () => {
    const { workspace, call } = await provider();
    const person = await signedInMember(workspace.id, "approver");
    const { row: key } = await newKey(workspace.id);
    const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: null };
    const resolved = await createApproval(keyActor, { summary: "Refund R-1", evidence: { order: "R-1" } });
    const pending = await createApproval(keyActor, { summary: "Refund R-2", evidence: { order: "R-2" }, required_approvals: 2 });
    const asPerson = { type: "member" as const, workspaceId: workspace.id, memberId: person.member.id };
    await decideApproval(asPerson, resolved.id, "approve", "ok");
    await decideApproval(asPerson, pending.id, "approve", null);

    // The identity provider takes the existing member over by email.
    const created = await call("POST", "/Users", { userName: person.email, emails: [{ value: person.email, primary: true }], active: true });
    expect(created.status).toBe(201);
    const db = await getDb();
    expect((await db.select().from(scimUsers).where(eq(scimUsers.id, created.json.id)))[0]!.memberId).toBe(person.member.id);
    expect((await memberOf(person.member.id))!.role).toBe("approver"); // no role groups: the web app's role stays

    const abort = new AbortController();
    const stream = await openLiveChannel(new Request("http://127.0.0.1/api/live", { signal: abort.signal }), { memberId: person.member.id, workspaceId: workspace.id, sessionToken: person.token });
    const reader = stream.getReader();
    // What the stream says before it ends: it ends by its access check (STREAM_ACCESS_CHECK_MS)
    // finding the member gone, saying so, not by its own time running out or by this test.
    let said = "";
    const ended = (async () => {
      const timer = setTimeout(() => abort.abort(), 25_000); // only so a broken stream fails this test rather than hangs
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return !abort.signal.aborted;
          said += new TextDecoder().decode(value);
        }
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    })();

    const off = await call("PATCH", `/Users/${created.json.id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(off.status).toBe(200);
    // Refused at once: no session, no membership for the web app to find.
    expect(await db.select().from(sessions).where(eq(sessions.userId, person.user.id))).toEqual([]);
    expect(await membershipsOfUser(person.user.id)).toEqual([]);
    expect(await ended).toBe(true);
    expect(said).toMatch(/: access ended \(key revoked, member removed or signed out\)\n\n$/);

    const decisions = await db.select().from(approvalDecisions).where(eq(approvalDecisions.memberId, person.member.id));
    expect(decisions.map((d) => d.approvalId)).toEqual([resolved.id]);
    const [entry] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "scim.user_deactivated")));
    expect(entry).toMatchObject({ actorType: "system", resourceId: created.json.id, summary: expect.objectContaining({ votes_withdrawn_from: [pending.id], sessions_ended: true, role: "approver" }) });
    const own = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.actorId, person.member.id)));
    expect(own.length).toBeGreaterThan(0); // what they did stays, under their member id

    // Reactivated: the same member id and account, a viewer (no role groups), signing in again.
    const on = await call("PATCH", `/Users/${created.json.id}`, { Operations: [{ op: "replace", value: { active: true } }] });
    expect(on.status).toBe(200);
    expect(await memberOf(person.member.id)).toMatchObject({ userId: person.user.id, role: "viewer" });
    await sealBeforeRead(workspace.id);
    expect((await verifyChain(workspace.id)).valid).toBe(true);
  });

  it("DELETE deprovisions as active false does", async () => {
    const { workspace, call } = await provider();
    const person = await signedInMember(workspace.id, "viewer");
    const created = await call("POST", "/Users", { userName: person.email });
    expect((await call("DELETE", `/Users/${created.json.id}`)).status).toBe(204);
    const db = await getDb();
    expect(await db.select().from(sessions).where(eq(sessions.userId, person.user.id))).toEqual([]);
    expect(await memberOf(person.member.id)).toBeUndefined();
    const [entry] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "scim.user_deleted")));
    expect(entry!.summary).toMatchObject({ sessions_ended: true, email: person.email });
  });

  it("refuses to deprovision an owner (only an owner removes an owner), and a role group never changes one", async () => {
    const { workspace, call } = await provider();
    const owner = await signedInMember(workspace.id, "owner");
    const created = await call("POST", "/Users", { userName: owner.email });
    const group = await call("POST", "/Groups", { displayName: "agentdraft-viewer", members: [{ value: created.json.id }] });
    expect(group.status).toBe(201);
    expect((await memberOf(owner.member.id))!.role).toBe("owner");
    const refused = await call("PATCH", `/Users/${created.json.id}`, { Operations: [{ op: "replace", path: "active", value: false }] });
    expect(refused).toMatchObject({ status: 403, json: { schemas: [ERROR], status: "403" } });
    expect(refused.json.detail).toMatch(/owner/);
    expect(await memberOf(owner.member.id)).toBeDefined();
    const db = await getDb();
    expect(await db.select().from(sessions).where(eq(sessions.userId, owner.user.id))).toHaveLength(1);
  });
});
