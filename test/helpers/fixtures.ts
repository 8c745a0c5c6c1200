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
