import { createWorkspace } from "../../lib/domains/workspaces/create-workspace";
import { createAgent } from "../../lib/domains/agents/create-agent";
import { createKey } from "../../lib/domains/api-keys/create-key";
import { operatorActor } from "../../lib/platform/actor";
import type { CreateKeyInput } from "../../lib/domains/api-keys/schemas";

let n = 0;
const unique = (base: string) => `${base}-${process.pid}-${++n}`;

/** A fresh workspace per test keeps tests independent on a shared database. */
export async function newWorkspace(name = unique("ws")) {
  const workspace = await createWorkspace({ name });
  return { workspace, actor: operatorActor(workspace.id) };
}

export async function newAgent(workspaceId: string, name = unique("agent")) {
  return createAgent(operatorActor(workspaceId), { name });
}

export async function newKey(workspaceId: string, input: CreateKeyInput = {}) {
  return createKey(operatorActor(workspaceId), input);
}

/** A member row with a role (the web app adds sign-in identities to members). */
export async function newMember(workspaceId: string, role: "owner" | "admin" | "approver" | "viewer", email = `${unique(role)}@team.test`) {
  const { getDb } = await import("../../db/client");
  const { members } = await import("../../db/schema");
  const { newId } = await import("../../lib/platform/ids");
  const db = await getDb();
  const [row] = await db.insert(members).values({ id: newId("member"), workspaceId, email, role }).returning();
  return { member: row!, actor: { type: "member" as const, workspaceId, memberId: row!.id } };
}

/**
 * The workspace's admins trust these domains (what Settings → Taint does): mail from them, when it
 * authenticates, is inside; mail to them is to someone trusted. For tests of mail mechanics whose
 * correspondents are colleagues, not of the built-in protection.
 */
export async function trustDomains(workspaceId: string, ...domains: string[]) {
  const { getDb } = await import("../../db/client");
  const { workspaces } = await import("../../db/schema");
  const { eq, sql } = await import("drizzle-orm");
  const db = await getDb();
  await db.update(workspaces).set({ trustedDomains: sql`array(select distinct unnest(${workspaces.trustedDomains} || ${`{${domains.map((d) => d.toLowerCase()).join(",")}}`}::text[]))` }).where(eq(workspaces.id, workspaceId));
}

/**
 * Turns built-in rules off as an owner would with a passkey (lib/domains/approvals/builtin-policies.ts),
 * for tests of the rules an admin adds.
 */
export async function turnOffBuiltins(workspaceId: string, ...keys: ("mail" | "webhooks" | "leases" | "holds")[]) {
  const { getDb } = await import("../../db/client");
  const { approvalPolicies } = await import("../../db/schema");
  const { and, eq, inArray } = await import("drizzle-orm");
  const db = await getDb();
  await db.delete(approvalPolicies).where(and(eq(approvalPolicies.workspaceId, workspaceId), inArray(approvalPolicies.builtin, keys)));
}

/** A member with a signed-in identity and one software passkey (test/helpers/software-passkey.ts). */
export async function newPersonWithPasskey(workspaceId: string, role: "owner" | "admin" | "approver" | "viewer" = "approver") {
  const { getDb } = await import("../../db/client");
  const { members, users } = await import("../../db/schema");
  const { newId } = await import("../../lib/platform/ids");
  const { eq } = await import("drizzle-orm");
  const { softwarePasskey } = await import("./software-passkey");
  const m = await newMember(workspaceId, role);
  const db = await getDb();
  const [user] = await db.insert(users).values({ id: newId("user"), email: m.member.email }).returning();
  await db.update(members).set({ userId: user!.id }).where(eq(members.id, m.member.id));
  const passkey = softwarePasskey();
  await passkey.register(user!.id);
  return { ...m, passkey };
}
