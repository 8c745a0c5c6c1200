// The web app's rules in lib/: first run, invitations, roles, passkeys and sessions.
// One file on purpose: first run depends on no account existing yet in the database, and
// the test files of a Postgres run share one database.
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { auditEntries, authAccounts, authenticators, invitations, members, sessions, users, type MemberRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { createApproval } from "../approvals/create-approval";
import { decideApproval } from "../approvals/decide-approval";
import { serializeApprovals } from "../approvals/serialize";
import { approvals } from "../../../db/schema";
import { inArray } from "drizzle-orm";
import { registerUser, acceptInvitation } from "./registration";
import { isSetupOpen } from "./setup-status";
import { setupToken } from "./setup-token";
import { runCli } from "../../../cli/main";
import { createInvitation } from "../invitations/create-invitation";
import { findInvitationByToken, listPendingInvitations } from "../invitations/find-invitation";
import { revokeInvitation } from "../invitations/revoke-invitation";
import { changeRole } from "../members/change-role";
import { removeMember } from "../members/remove-member";
import { listMail } from "../mail/list-mail";
import { proveEmail, provenMemberIds, requestEmailProof } from "../members/email-proof";
import { addPasskey, removePasskey, signOutEverywhere, listPasskeys } from "../passkeys/passkeys";
import { verifyChain } from "../../platform/audit/verify-chain";
import { agentDraftAdapter } from "./adapter";
import { guardWebAuthnOptions } from "./webauthn-options-guard";
import type { MemberRole } from "../members/roles";
import { renameWorkspace } from "../workspaces/rename-workspace";
import { getWorkspace } from "../workspaces/get-workspace";

let n = 0;
const email = () => `person-${process.pid}-${++n}@example.test`;

async function newMember(workspaceId: string, role: MemberRole): Promise<MemberRow> {
  const db = await getDb();
  const address = email();
  const [user] = await db.insert(users).values({ id: newId("user"), email: address, name: `Person ${n}` }).returning();
  const [member] = await db.insert(members).values({ id: newId("member"), workspaceId, email: address, name: user!.name, role, userId: user!.id }).returning();
  return member!;
}

/** Invites `address` and returns the token from the captured mail's link. */
async function invite(by: MemberRow, address: string, role: "admin" | "approver" | "viewer" = "viewer") {
  const { invitation, mail } = await createInvitation(by, { email: address, role }, "http://localhost:3000", null);
  const { items } = await listMail(by.workspaceId);
  const captured = items.find((m) => m.id === mail.id)!;
  const token = /\/invite\/([A-Za-z0-9_-]+)/.exec(captured.text)![1]!;
  return { invitation, token, mail: captured };
}

async function actions(workspaceId: string) {
  const db = await getDb();
  const rows = await db.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspaceId)).orderBy(auditEntries.seq, auditEntries.id); // unsealed entries (seq null) last, in insertion order
  return rows.map((r) => `${r.actorType}:${r.action}`);
}

describe("first run", () => {
  it("makes the first person the owner of a new workspace, in one audited transaction", async () => {
    expect(await isSetupOpen()).toBe(true);
    const intent = { kind: "setup", workspaceName: "Acme Ops", name: "Ada", email: "Ada@Example.test", setupToken: setupToken() };
    // The passkey must be registered for the email given in the form.
    await expect(registerUser(intent, "mallory@example.test")).rejects.toMatchObject({ code: "forbidden" });
    // A visitor who does not hold the setup token (printed at start, or AGENTDRAFT_SETUP_TOKEN) cannot become the owner.
    for (const wrong of [undefined, "", "guessed-token-000000", `${setupToken()}x`]) {
      await expect(registerUser({ ...intent, setupToken: wrong }, "ada@example.test")).rejects.toMatchObject({ code: "forbidden" });
    }
    expect(await isSetupOpen()).toBe(true);

    const user = await registerUser(intent, "ada@example.test");
    expect(user).toMatchObject({ id: expect.stringMatching(/^usr_/), email: "ada@example.test", name: "Ada" });
    const db = await getDb();
    const [member] = await db.select().from(members).where(eq(members.userId, user.id));
    expect(member).toMatchObject({ role: "owner", email: "ada@example.test", name: "Ada" });
    expect(await actions(member!.workspaceId)).toEqual(["member:workspace.created", "member:member.joined"]);
    expect((await verifyChain(member!.workspaceId)).valid).toBe(true);
    expect(await isSetupOpen()).toBe(false);
  });

  it("is closed once someone has an account", async () => {
    const intent = { kind: "setup", workspaceName: "Second", name: "Eve", email: "eve@example.test", setupToken: setupToken() };
    await expect(registerUser(intent, "eve@example.test")).rejects.toThrow(/already set up/);
    const db = await getDb();
    expect(await db.select().from(users).where(eq(users.email, "eve@example.test"))).toEqual([]);
  });

  it("refuses registration without an intent or with a malformed one", async () => {
    await expect(registerUser(undefined, "x@example.test")).rejects.toMatchObject({ code: "forbidden" });
    await expect(registerUser({ kind: "setup", email: "x@example.test" }, "x@example.test")).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("invitations", () => {
  it("an invitation sent through a provider keeps no readable token: only the invitee's mailbox has the link", async () => {
    const { workspace } = await newWorkspace("Sent Inc");
    const owner = await newMember(workspace.id, "owner");
    const delivered: string[] = [];
    const transport = async (m: { text: string }) => {
      delivered.push(m.text);
      return { providerId: "re_test_1" };
    };
    const { mail } = await createInvitation(owner, { email: email(), role: "viewer" }, "http://localhost:3000", transport);
    expect(mail.status).toBe("sent");
    const token = /\/invite\/([A-Za-z0-9_-]+)/.exec(delivered[0]!)![1]!;
    expect(await findInvitationByToken(token)).not.toBeNull();
    // What admins (and the database) can read: the mail, without the token.
    const stored = (await listMail(workspace.id)).items.find((m) => m.id === mail.id)!;
    expect(stored.text).not.toContain(token);
    expect(stored.text).toContain("[redacted");
    const db = await getDb();
    const { rows } = await db.execute(sql`select * from outbound_mail where id = ${mail.id}`);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("the passkey-options endpoint does not tell whether an account exists for an email", async () => {
    const { workspace } = await newWorkspace();
    const existing = await newMember(workspace.id, "viewer");
    const nobody = email();
    const forwarded = async (query: string, cookie?: string) => {
      const req = new Request(`http://localhost:3000/api/auth/webauthn-options/passkey?${query}`, { headers: cookie ? { cookie } : {} });
      return new URL((await guardWebAuthnOptions(req)).url).search;
    };
    for (const address of [existing.email, nobody]) {
      const q = encodeURIComponent(address);
      // Auth.js never sees the email, so its answer cannot differ between the two.
      expect(await forwarded(`action=authenticate&email=${q}`)).toBe("?action=authenticate");
      expect(await forwarded(`email=${q}`)).toBe("");
      expect(await forwarded(`action=register&email=${q}`)).toBe("?action=register");
    }
    // Registering for the address of a pending invitation the visitor holds keeps it.
    const { token } = await invite(await newMember(workspace.id, "owner"), nobody);
    const cookie = `agentdraft-registration=${Buffer.from(JSON.stringify({ kind: "invitation", token, name: "N" })).toString("base64url")}`;
    expect(await forwarded(`action=register&email=${encodeURIComponent(nobody)}`, cookie)).toContain("email=");
    expect(await forwarded(`action=register&email=${encodeURIComponent(existing.email)}`, cookie)).toBe("?action=register");
  });

  it("the operator CLI invites a workspace's first owner with a one-time link", async () => {
    const out: string[] = [];
    const sink = { write: (s: string) => out.push(s) };
    expect(await runCli(["workspace", "create", "--name", "Headless Co", "--json"], sink, sink)).toBe(0);
    const workspaceId = JSON.parse(out.join("")).id as string;
    out.length = 0;
    const address = email();
    const code = await runCli(["member", "invite", "--workspace", workspaceId, "--email", address, "--role", "owner", "--url", "https://agentdraft.example.com", "--json"], sink, sink);
    expect(code).toBe(0);
    const printed = JSON.parse(out.join(""));
    expect(printed).toMatchObject({ role: "owner", email: address, link: expect.stringMatching(/^https:\/\/agentdraft\.example\.com\/invite\/[A-Za-z0-9_-]{40,}$/) });
    const token = printed.link.split("/invite/")[1];
    const user = await registerUser({ kind: "invitation", token, name: "Headless Owner" }, address);
    const db = await getDb();
    const [member] = await db.select().from(members).where(eq(members.userId, user.id));
    expect(member).toMatchObject({ workspaceId, role: "owner" });
    // Once.
    await expect(registerUser({ kind: "invitation", token, name: "Again" }, email())).rejects.toBeTruthy();
    expect(await actions(workspaceId)).toEqual(["operator:workspace.created", "operator:invitation.created", "member:invitation.accepted"]);
    // The web app's admins cannot invite owners.
    await expect(createInvitation(member!, { email: email(), role: "owner" as "admin" }, "http://localhost:3000", null)).rejects.toBeTruthy();
  });

  it("mails a link (captured without a provider); accepting it creates the member with the invited role", async () => {
    const { workspace } = await newWorkspace("Invites Inc");
    const owner = await newMember(workspace.id, "owner");
    const address = email();
    const { invitation, token, mail } = await invite(owner, address.toUpperCase(), "approver");
    expect(invitation).toMatchObject({ email: address, role: "approver" });
    expect(invitation.tokenHash).not.toContain(token);
    expect(mail).toMatchObject({ status: "captured", kind: "invitation", to: [address] });
    expect(mail.subject).toContain("Invites Inc");
    expect((await findInvitationByToken(token))?.workspaceName).toBe("Invites Inc");

    const user = await registerUser({ kind: "invitation", token, name: "Grace" }, address);
    const db = await getDb();
    const [member] = await db.select().from(members).where(and(eq(members.workspaceId, workspace.id), eq(members.userId, user.id)));
    expect(member).toMatchObject({ role: "approver", name: "Grace", email: address });
    expect(await listPendingInvitations(workspace.id)).toEqual([]);
    expect(await actions(workspace.id)).toEqual(["operator:workspace.created", "member:invitation.created", "member:invitation.accepted"]);
  });

  it("works once: a used link is refused", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const address = email();
    const { token } = await invite(owner, address);
    await registerUser({ kind: "invitation", token, name: "One" }, address);
    await expect(registerUser({ kind: "invitation", token, name: "Two" }, email())).rejects.toThrow(/already used/);
  });

  it("is only for the invited email", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const { token } = await invite(owner, email());
    const other = email();
    await expect(registerUser({ kind: "invitation", token, name: "Mallory" }, other)).rejects.toMatchObject({ code: "forbidden" });
    // Nothing was created: no account without a membership.
    const db = await getDb();
    expect(await db.select().from(users).where(eq(users.email, other))).toEqual([]);
  });

  it("refuses revoked and expired invitations", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const revokedFor = email();
    const revoked = await invite(owner, revokedFor);
    await revokeInvitation(owner, { invitation_id: revoked.invitation.id });
    await expect(registerUser({ kind: "invitation", token: revoked.token, name: "R" }, revokedFor)).rejects.toThrow(/revoked/);

    const expiredFor = email();
    const expired = await invite(owner, expiredFor);
    const db = await getDb();
    await db.update(invitations).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitations.id, expired.invitation.id));
    await expect(registerUser({ kind: "invitation", token: expired.token, name: "E" }, expiredFor)).rejects.toThrow(/expired/);
  });

  it("a new invitation to the same address replaces the pending one", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const address = email();
    const first = await invite(owner, address);
    const second = await invite(owner, address, "admin");
    expect((await listPendingInvitations(workspace.id)).map((i) => i.id)).toEqual([second.invitation.id]);
    await expect(registerUser({ kind: "invitation", token: first.token, name: "Old" }, address)).rejects.toThrow(/revoked/);
  });

  it("refuses inviting an existing member, and lets only admins invite", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const viewer = await newMember(workspace.id, "viewer");
    await expect(createInvitation(owner, { email: viewer.email, role: "viewer" }, "http://localhost", null)).rejects.toMatchObject({ code: "conflict" });
    await expect(createInvitation(viewer, { email: email(), role: "viewer" }, "http://localhost", null)).rejects.toMatchObject({ code: "forbidden" });
    const approver = await newMember(workspace.id, "approver");
    await expect(createInvitation(approver, { email: email(), role: "viewer" }, "http://localhost", null)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("a signed-in person accepts an invitation to a second workspace", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const ownerB = await newMember(b.workspace.id, "owner");
    const person = await newMember(a.workspace.id, "viewer");
    const db = await getDb();
    const [user] = await db.select().from(users).where(eq(users.id, person.userId!));
    const { token } = await invite(ownerB, person.email, "admin");
    const joined = await acceptInvitation(token, user!);
    expect(joined).toMatchObject({ workspaceId: b.workspace.id, role: "admin", userId: user!.id });
    // An existing account cannot register again through an invitation.
    const { token: t2 } = await invite(await newMember(a.workspace.id, "owner"), email());
    await expect(registerUser({ kind: "invitation", token: t2, name: "x" }, person.email)).rejects.toThrow();
  });

  it("another workspace's admin cannot revoke this workspace's invitation", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const ownerA = await newMember(a.workspace.id, "owner");
    const adminB = await newMember(b.workspace.id, "admin");
    const { invitation } = await invite(ownerA, email());
    await expect(revokeInvitation(adminB, { invitation_id: invitation.id })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("invitations in capture mode: the address is proven only through a mail provider", () => {
  const provider = () => {
    const delivered: { to: unknown; text: string }[] = [];
    const transport = async (m: { to: unknown; text: string }) => {
      delivered.push({ to: m.to, text: m.text });
      return { providerId: `re_test_${delivered.length}` };
    };
    return { delivered, transport };
  };
  const userOf = async (userId: string) => (await (await getDb()).select().from(users).where(eq(users.id, userId)))[0]!;

  it("a captured invitation (admins can read its link) binds the member who accepts it and leaves the address unproven; no code is captured", async () => {
    const { workspace } = await newWorkspace("Capture Co");
    const owner = await newMember(workspace.id, "owner");
    const address = email();
    const { invitation, token } = await invite(owner, address, "approver");
    expect(invitation.linkSentAt).toBeNull();
    const user = await registerUser({ kind: "invitation", token, name: "Claimant" }, address);
    expect((await userOf(user.id)).emailVerified).toBeNull();
    const db = await getDb();
    const [member] = await db.select().from(members).where(and(eq(members.workspaceId, workspace.id), eq(members.userId, user.id)));
    const [accepted] = await db.select().from(invitations).where(eq(invitations.id, invitation.id));
    expect(accepted!.memberId).toBe(member!.id);
    expect((await provenMemberIds(workspace.id)).has(member!.id)).toBe(false);
    const [entry] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "invitation.accepted")));
    expect(entry!.summary).toMatchObject({ email_proven: false, member_id: member!.id });
    // A code would be captured too, where the same admins read it: refused, nothing mailed.
    const before = (await listMail(workspace.id)).items.length;
    await expect(requestEmailProof(user.id, null)).rejects.toMatchObject({ code: "conflict", message: expect.stringMatching(/no mail provider/) });
    expect((await listMail(workspace.id)).items).toHaveLength(before);
    expect((await userOf(user.id)).emailVerified).toBeNull();
  });

  it("an invitation sent through a provider proves the address when accepted", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const { delivered, transport } = provider();
    const address = email();
    const { invitation } = await createInvitation(owner, { email: address, role: "viewer" }, "http://localhost:3000", transport);
    expect(invitation.linkSentAt).toBeInstanceOf(Date);
    const token = /\/invite\/([A-Za-z0-9_-]+)/.exec(delivered[0]!.text)![1]!;
    const user = await registerUser({ kind: "invitation", token, name: "Mailbox Holder" }, address);
    expect((await userOf(user.id)).emailVerified).toBeInstanceOf(Date);
    const db = await getDb();
    const [member] = await db.select().from(members).where(eq(members.userId, user.id));
    expect((await provenMemberIds(workspace.id)).has(member!.id)).toBe(true);
    // A member who joined any other way (here: made directly, as the CLI or first run do) is unproven.
    expect((await provenMemberIds(workspace.id)).has(owner.id)).toBe(false);
  });

  it("a one-time code mailed through a provider proves an unproven address: stored redacted, wrong guesses spend it, it expires", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const address = email();
    const { token } = await invite(owner, address);
    const user = await registerUser({ kind: "invitation", token, name: "Later" }, address);
    const { delivered, transport } = provider();
    const codeIn = (i: number) => /(\d{6})/.exec(delivered[i]!.text)![1]!;

    await requestEmailProof(user.id, transport);
    expect(delivered[0]!.to).toEqual([address]);
    // What admins can read of it: not the code.
    const stored = (await listMail(workspace.id)).items.find((m) => m.kind === "email_proof")!;
    expect(stored.text).not.toContain(codeIn(0));
    expect(stored.text).toContain("[redacted");
    // Asking again at once is refused (each is a mail to a person).
    await expect(requestEmailProof(user.id, transport)).rejects.toMatchObject({ code: "rate_limited" });

    const wrong = codeIn(0) === "000000" ? "111111" : "000000";
    await expect(proveEmail(user.id, { code: "12ab" })).rejects.toMatchObject({ code: "validation_failed" });
    for (let i = 0; i < 5; i++) await expect(proveEmail(user.id, { code: wrong })).rejects.toMatchObject({ code: "validation_failed" });
    // Five wrong guesses spend it: the right code no longer works.
    await expect(proveEmail(user.id, { code: codeIn(0) })).rejects.toMatchObject({ code: "conflict" });
    expect((await userOf(user.id)).emailVerified).toBeNull();

    const db = await getDb();
    await db.execute(sql`update email_proofs set created_at = now() - interval '2 minutes' where user_id = ${user.id}`);
    await requestEmailProof(user.id, transport);
    await db.execute(sql`update email_proofs set expires_at = now() - interval '1 second' where user_id = ${user.id}`);
    await expect(proveEmail(user.id, { code: codeIn(1) })).rejects.toMatchObject({ code: "conflict" });

    await db.execute(sql`update email_proofs set created_at = now() - interval '2 minutes' where user_id = ${user.id}`);
    await requestEmailProof(user.id, transport);
    await proveEmail(user.id, { code: codeIn(2) });
    expect((await userOf(user.id)).emailVerified).toBeInstanceOf(Date);
    const [member] = await db.select().from(members).where(eq(members.userId, user.id));
    expect((await provenMemberIds(workspace.id)).has(member!.id)).toBe(true);
    expect(await actions(workspace.id)).toContain("member:member.email_proven");
    // Once proven, there is nothing more to ask for.
    await expect(requestEmailProof(user.id, transport)).rejects.toMatchObject({ code: "conflict" });
  });
});

describe("roles", () => {
  it("admins change roles below owner; only owners grant owner; the last owner stays", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const admin = await newMember(workspace.id, "admin");
    const viewer = await newMember(workspace.id, "viewer");

    expect((await changeRole(admin, { member_id: viewer.id, role: "approver" })).role).toBe("approver");
    await expect(changeRole(admin, { member_id: viewer.id, role: "owner" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(changeRole(admin, { member_id: owner.id, role: "viewer" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(changeRole(viewer, { member_id: admin.id, role: "viewer" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(changeRole(owner, { member_id: owner.id, role: "admin" })).rejects.toThrow(/at least one owner/);

    expect((await changeRole(owner, { member_id: admin.id, role: "owner" })).role).toBe("owner");
    expect((await changeRole(owner, { member_id: owner.id, role: "admin" })).role).toBe("admin");
    const log = await actions(workspace.id);
    expect(log.filter((a) => a === "member:member.role_changed")).toHaveLength(3);
  });

  it("only owners rename the workspace", async () => {
    const { workspace } = await newWorkspace("Old Name");
    const owner = await newMember(workspace.id, "owner");
    const admin = await newMember(workspace.id, "admin");
    await expect(renameWorkspace(admin, { name: "Hijacked" })).rejects.toMatchObject({ code: "forbidden" });
    await renameWorkspace(owner, { name: "New Name" });
    expect((await getWorkspace(workspace.id)).name).toBe("New Name");
    expect((await actions(workspace.id)).at(-1)).toBe("member:workspace.renamed");
  });

  it("cannot reach a member of another workspace", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const ownerA = await newMember(a.workspace.id, "owner");
    const viewerB = await newMember(b.workspace.id, "viewer");
    await expect(changeRole(ownerA, { member_id: viewerB.id, role: "admin" })).rejects.toMatchObject({ code: "not_found" });
    await expect(removeMember(ownerA, { member_id: viewerB.id })).rejects.toMatchObject({ code: "not_found" });
  });

  it("removing a member ends their sessions when it was their last workspace", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const admin = await newMember(workspace.id, "admin");
    const viewer = await newMember(workspace.id, "viewer");
    const db = await getDb();
    await db.insert(sessions).values({ sessionToken: `tok-${viewer.id}`, userId: viewer.userId!, expires: new Date(Date.now() + 60_000) });

    await expect(removeMember(viewer, { member_id: admin.id })).rejects.toMatchObject({ code: "forbidden" });
    await expect(removeMember(admin, { member_id: owner.id })).rejects.toMatchObject({ code: "forbidden" });
    await expect(removeMember(admin, { member_id: admin.id })).rejects.toThrow(/yourself/);
    await removeMember(admin, { member_id: viewer.id });
    expect(await db.select().from(members).where(eq(members.id, viewer.id))).toEqual([]);
    expect(await db.select().from(sessions).where(eq(sessions.userId, viewer.userId!))).toEqual([]);
    expect((await actions(workspace.id)).at(-1)).toBe("member:member.removed");
  });
});

describe("removing an approver who voted", () => {
  it("succeeds, keeps their decisions on resolved approvals, withdraws their votes on pending ones, ends their sessions", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const approver = await newMember(workspace.id, "approver");
    const { row: key } = await newKey(workspace.id);
    const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: null };
    const resolved = await createApproval(keyActor, { summary: "Refund A-1", evidence: { order: "A-1" } });
    const pending = await createApproval(keyActor, { summary: "Refund A-2", evidence: { order: "A-2" }, required_approvals: 2 });
    const as = (m: MemberRow) => ({ type: "member" as const, workspaceId: workspace.id, memberId: m.id });
    await decideApproval(as(approver), resolved.id, "approve", "fine");
    await decideApproval(as(approver), pending.id, "approve", null);
    const db = await getDb();
    await db.insert(sessions).values({ sessionToken: `tok-${approver.id}`, userId: approver.userId!, expires: new Date(Date.now() + 60_000) });

    await removeMember(owner, { member_id: approver.id });

    expect(await db.select().from(members).where(eq(members.id, approver.id))).toEqual([]);
    expect(await db.select().from(sessions).where(eq(sessions.userId, approver.userId!))).toEqual([]);
    const [after] = await getApprovals(workspace.id, [resolved.id, pending.id]);
    expect(after.get(resolved.id)).toMatchObject({ status: "approved", decisions: [{ member_id: approver.id, decision: "approve", note: "fine" }] });
    expect(after.get(pending.id)).toMatchObject({ status: "pending", approvals: 0, decisions: [] });
    const removed = (await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "member.removed"))))[0]!;
    expect(removed.summary).toMatchObject({ votes_withdrawn_from: [pending.id] });
    expect((await verifyChain(workspace.id)).valid).toBe(true);
  });
});

describe("demoting an approver who voted", () => {
  it("withdraws their votes on pending approvals (audited), keeps their decisions on resolved ones; a role that can still decide keeps its votes", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const approver = await newMember(workspace.id, "approver");
    const admin = await newMember(workspace.id, "admin");
    const { row: key } = await newKey(workspace.id);
    const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: null };
    const resolved = await createApproval(keyActor, { summary: "Refund B-1", evidence: { order: "B-1" } });
    const pending = await createApproval(keyActor, { summary: "Refund B-2", evidence: { order: "B-2" }, required_approvals: 3 });
    const as = (m: MemberRow) => ({ type: "member" as const, workspaceId: workspace.id, memberId: m.id });
    await decideApproval(as(approver), resolved.id, "approve", "fine");
    await decideApproval(as(approver), pending.id, "approve", null);
    await decideApproval(as(admin), pending.id, "approve", null);

    await changeRole(owner, { member_id: admin.id, role: "approver" }); // still decides: keeps the vote
    await changeRole(owner, { member_id: approver.id, role: "viewer" });

    const [after] = await getApprovals(workspace.id, [resolved.id, pending.id]);
    expect(after.get(resolved.id)).toMatchObject({ status: "approved", decisions: [{ member_id: approver.id, decision: "approve", note: "fine" }] });
    expect(after.get(pending.id)).toMatchObject({ status: "pending", approvals: 1, decisions: [{ member_id: admin.id }] });
    const db = await getDb();
    const changes = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "member.role_changed"))).orderBy(auditEntries.at, auditEntries.id);
    expect(changes.map((c) => c.summary)).toEqual([
      { from: "admin", to: "approver", votes_withdrawn_from: [] },
      { from: "approver", to: "viewer", votes_withdrawn_from: [pending.id] },
    ]);
    // Promoted again, they vote afresh: the withdrawn vote does not come back.
    await changeRole(owner, { member_id: approver.id, role: "approver" });
    expect((await getApprovals(workspace.id, [pending.id]))[0].get(pending.id)).toMatchObject({ approvals: 1 });
    await decideApproval(as(approver), pending.id, "approve", null);
    expect((await getApprovals(workspace.id, [pending.id]))[0].get(pending.id)).toMatchObject({ status: "pending", approvals: 2 });
    expect((await verifyChain(workspace.id)).valid).toBe(true);
  });
});

describe("demotions racing votes", () => {
  it("nine approvers vote while each is demoted at once: no vote of a member who cannot decide is left on the pending approval", async () => {
    const { workspace } = await newWorkspace();
    const owner = await newMember(workspace.id, "owner");
    const approvers = await Promise.all(Array.from({ length: 9 }, () => newMember(workspace.id, "approver")));
    const { row: key } = await newKey(workspace.id);
    const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: key.id, agentId: null };
    const pending = await createApproval(keyActor, { summary: "Refund C-1", evidence: { order: "C-1" }, required_approvals: 10 });
    const as = (m: MemberRow) => ({ type: "member" as const, workspaceId: workspace.id, memberId: m.id });
    const outcomes = await Promise.allSettled(
      approvers.flatMap((m) => [decideApproval(as(m), pending.id, "approve", null), changeRole(owner, { member_id: m.id, role: "viewer" })]),
    );
    // A vote either landed before its demotion (and was withdrawn) or was refused after it.
    for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toMatchObject({ code: "forbidden" });
    const [after] = await getApprovals(workspace.id, [pending.id]);
    expect(after.get(pending.id)).toMatchObject({ status: "pending", approvals: 0, decisions: [] });
  });
});

describe("passkeys and sessions", () => {
  const passkey = (userId: string, id: string) => ({
    credentialID: id,
    userId,
    providerAccountId: id,
    credentialPublicKey: "pk",
    counter: 0,
    credentialDeviceType: "multiDevice",
    credentialBackedUp: true,
    transports: "internal",
  });

  it("adds passkeys with an audit entry, and never removes the last one", async () => {
    const { workspace } = await newWorkspace();
    const m = await newMember(workspace.id, "admin");
    const userId = m.userId!;
    const db = await getDb();
    for (const id of [`cred-a-${m.id}`, `cred-b-${m.id}`]) {
      await db.insert(authAccounts).values({ userId, type: "webauthn", provider: "passkey", providerAccountId: id });
      await addPasskey(passkey(userId, id));
    }
    expect(await listPasskeys(userId)).toHaveLength(2);
    await db.insert(sessions).values({ sessionToken: `fresh-${m.id}`, userId, expires: new Date(Date.now() + 60_000) });
    await removePasskey(userId, { credential_id: `cred-a-${m.id}` }, `fresh-${m.id}`);
    expect((await listPasskeys(userId)).map((p) => p.credentialID)).toEqual([`cred-b-${m.id}`]);
    expect(await db.select().from(authAccounts).where(eq(authAccounts.providerAccountId, `cred-a-${m.id}`))).toEqual([]);
    await expect(removePasskey(userId, { credential_id: `cred-b-${m.id}` }, `fresh-${m.id}`)).rejects.toThrow(/only passkey/);
    expect(await db.select().from(authenticators).where(eq(authenticators.userId, userId))).toHaveLength(1);
    expect(await actions(workspace.id)).toEqual(["operator:workspace.created", "member:passkey.added", "member:passkey.added", "member:passkey.removed"]);
  });

  it("cannot remove someone else's passkey", async () => {
    const { workspace } = await newWorkspace();
    const a = await newMember(workspace.id, "owner");
    const b = await newMember(workspace.id, "viewer");
    await addPasskey(passkey(a.userId!, `cred-x-${a.id}`));
    await addPasskey(passkey(a.userId!, `cred-y-${a.id}`));
    const db = await getDb();
    await db.insert(sessions).values({ sessionToken: `fresh-${b.id}`, userId: b.userId!, expires: new Date(Date.now() + 60_000) });
    await expect(removePasskey(b.userId!, { credential_id: `cred-x-${a.id}` }, `fresh-${b.id}`)).rejects.toMatchObject({ code: "not_found" });
  });

  it("passkey changes need a passkey confirmation from the last minutes; removing one ends the other sessions", async () => {
    const { workspace } = await newWorkspace();
    const m = await newMember(workspace.id, "approver");
    const userId = m.userId!;
    const db = await getDb();
    const later = new Date(Date.now() + 3_600_000);
    const stale = new Date(Date.now() - 20 * 60_000);
    await db.insert(sessions).values([
      { sessionToken: `here-${m.id}`, userId, expires: later, authenticatedAt: stale },
      { sessionToken: `laptop-${m.id}`, userId, expires: later, authenticatedAt: stale },
      { sessionToken: `phone-${m.id}`, userId, expires: later },
    ]);
    let token: string | undefined = `here-${m.id}`;
    const adapter = agentDraftAdapter(db, async () => undefined, async () => token);
    const link = (id: string) => adapter.linkAccount!({ userId, type: "webauthn", provider: "passkey", providerAccountId: id } as never);

    // The first passkey (registration) needs nothing more.
    await link(`cred-1-${m.id}`);
    await adapter.createAuthenticator!({ ...passkey(userId, `cred-1-${m.id}`), transports: "internal" } as never);
    // A session signed in 20 minutes ago cannot add a second one, nor remove one...
    await expect(link(`cred-2-${m.id}`)).rejects.toMatchObject({ code: "forbidden" });
    await expect(removePasskey(userId, { credential_id: `cred-1-${m.id}` }, token)).rejects.toMatchObject({ code: "forbidden" });
    await expect(removePasskey(userId, { credential_id: `cred-1-${m.id}` }, undefined)).rejects.toMatchObject({ code: "forbidden" });
    // ...until it confirms with a passkey (a verified assertion while signed in).
    await adapter.updateAuthenticatorCounter!(`cred-1-${m.id}`, 1);
    await link(`cred-2-${m.id}`);
    await adapter.createAuthenticator!({ ...passkey(userId, `cred-2-${m.id}`), transports: "internal" } as never);
    expect(await listPasskeys(userId)).toHaveLength(2);
    // Someone else's session cannot be refreshed with this user's passkey.
    token = `laptop-${m.id}`;
    await adapter.updateAuthenticatorCounter!(`cred-1-${m.id}`, 2);
    token = `here-${m.id}`;

    await removePasskey(userId, { credential_id: `cred-1-${m.id}` }, token);
    const left = await db.select({ token: sessions.sessionToken }).from(sessions).where(eq(sessions.userId, userId));
    expect(left.map((s) => s.token)).toEqual([`here-${m.id}`]);
  });

  it("signing out everywhere deletes every session of the user and only theirs", async () => {
    const { workspace } = await newWorkspace();
    const a = await newMember(workspace.id, "owner");
    const b = await newMember(workspace.id, "viewer");
    const db = await getDb();
    const later = new Date(Date.now() + 60_000);
    await db.insert(sessions).values([
      { sessionToken: `s1-${a.id}`, userId: a.userId!, expires: later },
      { sessionToken: `s2-${a.id}`, userId: a.userId!, expires: later },
      { sessionToken: `s1-${b.id}`, userId: b.userId!, expires: later },
    ]);
    expect(await signOutEverywhere(a.userId!)).toBe(2);
    expect(await db.select().from(sessions).where(eq(sessions.userId, a.userId!))).toEqual([]);
    expect(await db.select().from(sessions).where(eq(sessions.userId, b.userId!))).toHaveLength(1);
    expect((await actions(workspace.id)).at(-1)).toBe("member:sessions.revoked");
  });
});

async function getApprovals(workspaceId: string, ids: string[]) {
  const db = await getDb();
  const rows = await db.select().from(approvals).where(and(eq(approvals.workspaceId, workspaceId), inArray(approvals.id, ids)));
  return [new Map((await serializeApprovals(db, rows)).map((a) => [a.id, a]))] as const;
}
