import type { WorkspaceRow } from "../../../db/schema";

export const serializeWorkspace = (w: WorkspaceRow) => ({
  id: w.id,
  object: "workspace" as const,
  name: w.name,
  created_at: w.createdAt.toISOString(),
});
