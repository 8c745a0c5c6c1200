import { createWorkspace } from "../../lib/workspaces/create-workspace";
import { createAgent } from "../../lib/agents/create-agent";
import { createKey } from "../../lib/api-keys/create-key";
import { operatorActor } from "../../lib/actor";
import type { CreateKeyInput } from "../../lib/api-keys/schemas";

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
