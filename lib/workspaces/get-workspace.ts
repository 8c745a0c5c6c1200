import { eq } from "drizzle-orm";
import { getDb } from "../../db/client";
import { workspaces, type WorkspaceRow } from "../../db/schema";
import { notFound } from "../errors";

export async function getWorkspace(id: string): Promise<WorkspaceRow> {
  const db = await getDb();
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, id));
  if (!row) throw notFound("workspace", id);
  return row;
}
