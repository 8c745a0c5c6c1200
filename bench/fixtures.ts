import { createWorkspace } from "../lib/domains/workspaces/create-workspace";
import { createKey } from "../lib/domains/api-keys/create-key";
import { operatorActor } from "../lib/platform/actor";

export async function newWorkspaceWithKey(name: string) {
  const workspace = await createWorkspace({ name });
  const { row, key } = await createKey(operatorActor(workspace.id), { name: "bench" });
  return { workspace, keyRow: row, key };
}
