import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * The tip of each workspace's audit chain. Appending locks this row, so entries of one
 * workspace are chained one at a time, in commit order, with no gaps or forks.
 */
export const auditHeads = pgTable("audit_heads", {
  workspaceId: text("workspace_id")
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "restrict" }),
  seq: bigint("seq", { mode: "number" }).notNull(),
  hash: text("hash").notNull(),
});
