import { createWorkspace } from "../lib/workspaces/create-workspace";
import { createKey } from "../lib/api-keys/create-key";
import { operatorActor } from "../lib/actor";

export async function newWorkspaceWithKey(name: string) {
  const workspace = await createWorkspace({ name });
  const { row, key } = await createKey(operatorActor(workspace.id), { name: "bench" });
  return { workspace, keyRow: row, key };
}
