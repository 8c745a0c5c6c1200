import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { workspaces, type WorkspaceRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { operatorActor, type Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { seedBuiltinPolicies } from "../approvals";

export const createWorkspaceInput = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
});

/** Creates a workspace with its built-in rules; its audit chain starts with this entry. `by` defaults to the operator CLI. */
export async function createWorkspace(
  input: z.input<typeof createWorkspaceInput>,
  by: (workspaceId: string) => Actor = operatorActor,
): Promise<WorkspaceRow> {
  const { name } = createWorkspaceInput.parse(input);
  return transaction(async (tx) => {
    const [row] = await tx.insert(workspaces).values({ id: newId("workspace"), name }).returning();
    // Protected from the first minute: the built-in rules (lib/domains/approvals/builtin-policies.ts).
    await seedBuiltinPolicies(tx, row!.id);
    await appendAudit(tx, [{ actor: by(row!.id), action: "workspace.created", resource: { type: "workspace", id: row!.id }, summary: { name } }]);
    return row!;
  });
}
