import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * The tip of each workspace's audit chain. A sealer moves it by compare-and-set from the head
 * it read, in the statement that chains the entries, so a workspace's entries are chained one
 * sealer at a time, in commit order, with no gaps or forks, and no other workspace's sealer or
 * reader waits on it (lib/platform/audit/seal-chain.ts).
 */
export const auditHeads = pgTable("audit_heads", {
  workspaceId: text("workspace_id")
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "restrict" }),
  seq: bigint("seq", { mode: "number" }).notNull(),
  hash: text("hash").notNull(),
});
