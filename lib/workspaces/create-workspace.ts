import { z } from "zod";
import { getDb } from "../../db/client";
import { workspaces, type WorkspaceRow } from "../../db/schema";
import { newId } from "../ids";

export const createWorkspaceInput = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
});

export async function createWorkspace(input: z.input<typeof createWorkspaceInput>): Promise<WorkspaceRow> {
  const { name } = createWorkspaceInput.parse(input);
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(workspaces).values({ id: newId("workspace"), name }).returning();
    return row!;
  });
}
