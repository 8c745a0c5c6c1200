import { eq } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { workspaces, type WorkspaceRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";

export async function getWorkspace(id: string): Promise<WorkspaceRow> {
  const q = await queryable();
  const [row] = await q.select().from(workspaces).where(eq(workspaces.id, id));
  if (!row) throw notFound("workspace", id);
  return row;
}
