// "Let SCIM grant the owner role" (docs/scim.md): off, agentdraft-owner is an ordinary group and SCIM
// never changes an owner; on, the group grants and takes the owner role, never leaving the workspace
// without an owner, also when two changes race. Only an owner flips it, as the session says.
import { describe, expect, it, vi } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { and, eq, like } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { auditEntries, members, workspaces, type MemberRow } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { operatorActor } from "../../platform/actor";
import { createScimToken } from "./tokens";
import { changeRole } from "../members/change-role";
import { raceAtLock } from "../../../test/helpers/race-at-lock";
import { scimOwnerGroupEnabled, setScimOwnerGroup } from "./owner-group-switch";
import type { SignedInMember } from "../auth/current-member";

// The server action reads the signed-in member from next-auth's session: here, whoever the test says.
const session = vi.hoisted(() => ({ signedIn: null as null | SignedInMember }));
vi.mock("../auth/current-member", () => ({ currentMember: async () => session.signedIn, requireMember: async () => session.signedIn! }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
const { setScimOwnerGroupAction } = await import("../../../app/(app)/settings/scim/actions");
const { default: ScimSettingsPage } = await import("../../../app/(app)/settings/scim/page");

const { api } = serveApiForTests();
const SCIM = "application/scim+json";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
let n = 0;
const address = (who: string) => `${who}-${process.pid}-${++n}@corp.test`;

/** A workspace, its identity provider's SCIM client, and people provisioned from members it already has (so owners can be made). */
async function provider() {
  const { workspace } = await newWorkspace();
  const { token } = await createScimToken(operatorActor(workspace.id), { name: "idp" });
  const call = (method: string, path: string, body?: unknown) =>
    api(`/scim/v2${path}`, { method, key: token, ...(body !== undefined ? { rawBody: JSON.stringify(body), headers: { "content-type": SCIM } } : {}) });
  const person = async (role: "owner" | "admin" | "approver" | "viewer") => {
    const { member } = await newMember(workspace.id, role, address(role));
    const created = await call("POST", "/Users", { userName: member.email });
    expect(created.status).toBe(201);
    return { member, scimId: created.json.id as string };
  };
  const group = async (displayName: string, people: { scimId: string }[]) => {
    const res = await call("POST", "/Groups", { displayName, members: people.map((p) => ({ value: p.scimId })) });
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  const removeFrom = (groupId: string, p: { scimId: string }) => call("PATCH", `/Groups/${groupId}`, { Operations: [{ op: "remove", path: `members[value eq "${p.scimId}"]` }] });
  const addTo = (groupId: string, p: { scimId: string }) => call("PATCH", `/Groups/${groupId}`, { Operations: [{ op: "add", path: "members", value: [{ value: p.scimId }] }] });
  return { workspace, call, person, group, removeFrom, addTo };
}

async function roleOf(memberId: string) {
  const db = await getDb();
  return (await db.select({ role: members.role }).from(members).where(eq(members.id, memberId)))[0]?.role;
}

async function ownersOf(workspaceId: string) {
  const db = await getDb();
  return db.select({ id: members.id }).from(members).where(and(eq(members.workspaceId, workspaceId), eq(members.role, "owner")));
}

const signedInAs = async (member: MemberRow): Promise<SignedInMember> => {
  const db = await getDb();
  const [workspace] = await db.select().from(workspaces).where(eq(workspaces.id, member.workspaceId));
  return { user: { id: `user_${member.id}`, email: member.email, name: null }, member, workspace: workspace! };
};

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

describe("with the switch off (the default)", () => {
  it("agentdraft-owner is an ordinary group and SCIM changes no owner", async () => {
    const { workspace, call, person, group, removeFrom } = await provider();
    expect(await scimOwnerGroupEnabled(workspace.id)).toBe(false);
    const owner = await person("owner");
    const viewer = await person("viewer");
    await group("agentdraft-viewer", [owner, viewer]);
    const owners = await group("AgentDraft-Owner", [owner, viewer]);
    expect(await roleOf(viewer.member.id)).toBe("viewer");
    expect(await roleOf(owner.member.id)).toBe("owner");
    expect((await removeFrom(owners, owner)).status).toBe(204);
    expect(await roleOf(owner.member.id)).toBe("owner");
    const refused = await call("DELETE", `/Users/${owner.scimId}`);
    expect(refused).toMatchObject({ status: 403, json: { schemas: [ERROR], status: "403" } });
    expect(await roleOf(owner.member.id)).toBe("owner");
  });
});

describe("with the switch on", () => {
  it("the owner group grants owner, leaving it demotes to the other groups' role, and the last owner is refused with 400 mutability, changing nothing", async () => {
    const { workspace, call, person, group, removeFrom, addTo } = await provider();
    const first = await person("owner"); // the workspace's only owner, provisioned
    await setScimOwnerGroup(first.member, { enabled: true });
    const alice = await person("viewer");
    const admins = await group("agentdraft-admin", [alice, first]);
    expect(await roleOf(first.member.id)).toBe("owner"); // no agentdraft-owner group yet: owners stay as they are
    const owners = await group("agentdraft-owner", [first]);
    expect(await roleOf(alice.member.id)).toBe("admin");

    expect((await addTo(owners, alice)).status).toBe(204);
    expect(await roleOf(alice.member.id)).toBe("owner"); // highest role wins
    expect((await removeFrom(owners, alice)).status).toBe(204);
    expect(await roleOf(alice.member.id)).toBe("admin");
    expect((await removeFrom(admins, alice)).status).toBe(204);
    expect(await roleOf(alice.member.id)).toBe("viewer");

    // first is the last owner: leaving the group, the group going, or deprovisioning is refused, and nothing changes
    for (const attempt of [
      () => removeFrom(owners, first),
      () => call("PATCH", `/Groups/${owners}`, { Operations: [{ op: "replace", path: "displayName", value: "former-owners" }] }),
      () => call("DELETE", `/Groups/${owners}`),
      () => call("PATCH", `/Users/${first.scimId}`, { Operations: [{ op: "replace", path: "active", value: false }] }),
      () => call("DELETE", `/Users/${first.scimId}`),
    ]) {
      const res = await attempt();
      expect(res).toMatchObject({ status: 400, json: { schemas: [ERROR], status: "400", scimType: "mutability" } });
      expect(res.json.detail).toMatch(/without an owner/);
      expect(await roleOf(first.member.id)).toBe("owner");
    }
    const kept = await call("GET", `/Groups/${owners}`);
    expect(kept.json).toMatchObject({ displayName: "agentdraft-owner", members: [{ value: first.scimId }] });
    expect((await call("GET", `/Users/${first.scimId}`)).json.active).toBe(true);

    // with another owner, an owner is deprovisioned like anyone
    expect((await addTo(owners, alice)).status).toBe(204);
    expect((await call("DELETE", `/Users/${first.scimId}`)).status).toBe(204);
    expect(await roleOf(first.member.id)).toBeUndefined();
    expect(await ownersOf(workspace.id)).toEqual([{ id: alice.member.id }]);
  });

  it("turned off, changes nobody's role and stops SCIM from changing owners", async () => {
    const { workspace, person, group, removeFrom } = await provider();
    const founder = await person("owner");
    await setScimOwnerGroup(founder.member, { enabled: true });
    const bob = await person("viewer");
    const owners = await group("agentdraft-owner", [founder, bob]);
    expect(await roleOf(bob.member.id)).toBe("owner");
    await setScimOwnerGroup(founder.member, { enabled: false });
    expect(await roleOf(bob.member.id)).toBe("owner");
    expect((await removeFrom(owners, bob)).status).toBe(204);
    expect(await roleOf(bob.member.id)).toBe("owner");
    expect(await ownersOf(workspace.id)).toHaveLength(2);
  });

  it("two racing changes that each remove one of the last two owners leave one owner", async () => {
    for (let round = 0; round < 4; round++) {
      const { workspace, call, person, group, removeFrom } = await provider();
      const a = await person("owner");
      const b = await person("owner");
      await setScimOwnerGroup(a.member, { enabled: true });
      await group("agentdraft-approver", [a, b]);
      const owners = await group("agentdraft-owner", [a, b]);
      // round 0-1: two PATCHes of the owner group; round 2-3: a PATCH of the group against a deprovisioning (other rows, one workspace)
      const [one, two] = await Promise.all(round < 2 ? [removeFrom(owners, a), removeFrom(owners, b)] : [removeFrom(owners, a), call("DELETE", `/Users/${b.scimId}`)]);
      expect([one.status, two.status].sort()).toEqual([204, 400]);
      expect([one, two].find((r) => r.status === 400)!.json.scimType).toBe("mutability");
      expect(await ownersOf(workspace.id)).toHaveLength(1);
    }
  });
});

describe("the web app beside SCIM", () => {
  it("an owner demoting the other owner while SCIM removes the first from the owner group: one wins, one is refused, never a deadlock or no owner", async () => {
    for (let round = 0; round < 4; round++) {
      const { workspace, person, group, removeFrom } = await provider();
      const [lo, hi] = [await person("owner"), await person("owner")].sort((x, y) => (x.member.id < y.member.id ? -1 : 1));
      await setScimOwnerGroup(lo!.member, { enabled: true });
      await group("agentdraft-admin", [lo!, hi!]);
      const owners = await group("agentdraft-owner", [lo!, hi!]);
      // On Postgres the two meet at `hi`'s row: SCIM locks the owners in id order (lo, then waits for hi); the web
      // app's change of hi would take hi, then lo. Had it not taken the workspace's row first, as SCIM does, whoever
      // got hi when it was released could deadlock with the other (Postgres ends one with 40P01: a 500).
      const { result, met } = await raceAtLock(["select id from members where id = $1 for update", [hi!.member.id]], "%for%update%", 2, () =>
        Promise.allSettled([changeRole(lo!.member, { member_id: hi!.member.id, role: "admin" }), removeFrom(owners, lo!)]),
      );
      if (met !== null) expect(met, "both changes waited at once").toBe(true);
      const [web, scim] = result;
      const webDone = web.status === "fulfilled";
      const scimDone = scim.status === "fulfilled" && scim.value.status === 204;
      expect(webDone !== scimDone, JSON.stringify({ web: webDone ? "ok" : String((web as PromiseRejectedResult).reason), scim: scim.status === "fulfilled" ? scim.value.status : String(scim.reason) })).toBe(true);
      if (!webDone) expect(String((web as PromiseRejectedResult).reason)).toMatch(/at least one owner|owner role/);
      if (!scimDone) expect(scim.status === "fulfilled" && scim.value.status).toBe(400);
      expect(await ownersOf(workspace.id)).toHaveLength(1);
    }
  });
});

describe("the switch", () => {
  it("is flipped only by an owner, as the session says (an admin's form cannot), audited with who and when", async () => {
    const { workspace } = await newWorkspace();
    const { member: owner } = await newMember(workspace.id, "owner");
    const { member: admin } = await newMember(workspace.id, "admin");

    session.signedIn = await signedInAs(admin);
    const adminPage = renderToStaticMarkup(await ScimSettingsPage());
    expect(adminPage).toContain("Only an owner can turn this on or off.");
    expect(adminPage).not.toMatch(/name="enabled"/);
    const refused = await setScimOwnerGroupAction(null, form({ enabled: "true", role: "owner", member_id: owner.id }));
    expect(refused).toMatchObject({ ok: false });
    expect(await scimOwnerGroupEnabled(workspace.id)).toBe(false);
    await expect(setScimOwnerGroup(admin, { enabled: true })).rejects.toMatchObject({ code: "forbidden" });

    session.signedIn = null;
    expect(await setScimOwnerGroupAction(null, form({ enabled: "true" }))).toMatchObject({ ok: false });
    expect(await scimOwnerGroupEnabled(workspace.id)).toBe(false);

    session.signedIn = await signedInAs(owner);
    expect(renderToStaticMarkup(await ScimSettingsPage())).toMatch(/name="enabled" value="true"/);
    const before = Date.now();
    expect(await setScimOwnerGroupAction(null, form({ enabled: "true" }))).toMatchObject({ ok: true });
    expect(await scimOwnerGroupEnabled(workspace.id)).toBe(true);
    expect(await setScimOwnerGroupAction(null, form({ enabled: "false" }))).toMatchObject({ ok: true });
    expect(await scimOwnerGroupEnabled(workspace.id)).toBe(false);

    const db = await getDb();
    const entries = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), like(auditEntries.action, "scim.owner_group%"))).orderBy(auditEntries.at, auditEntries.id);
    expect(entries.map((e) => [e.action, e.actorType, e.actorId])).toEqual([
      ["scim.owner_group_enabled", "member", owner.id],
      ["scim.owner_group_disabled", "member", owner.id],
    ]);
    expect(entries[0]!.at.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});
