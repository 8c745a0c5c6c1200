import { eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { workspaces, type MemberRow, type WorkspaceRow } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { createWorkspaceInput } from "./create-workspace";

export const renameWorkspaceInput = createWorkspaceInput;

/** Owners rename their workspace. */
export async function renameWorkspace(by: MemberRow, input: z.input<typeof renameWorkspaceInput>): Promise<WorkspaceRow> {
  const { name } = renameWorkspaceInput.parse(input);
  assertRole(by.role, "owner", "rename the workspace");
  return transaction(async (tx) => {
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, by.workspaceId)).for("update");
    if (before!.name === name) return before!;
    const [row] = await tx.update(workspaces).set({ name }).where(eq(workspaces.id, by.workspaceId)).returning();
    await appendAudit(tx, [
      { actor: memberActor(by), action: "workspace.renamed", resource: { type: "workspace", id: by.workspaceId }, summary: { from: before!.name, to: name } },
    ]);
    return row!;
  });
}
