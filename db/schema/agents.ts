import { check, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** A named software worker. Agent-bound API keys act only as their agent. */
export const agents = pgTable(
  "agents",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    /** Priority ceiling (SPEC §12): a key bound to this agent asking for more is refused. */
    maxPriority: integer("max_priority").notNull().default(100),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("agents_workspace_name_key").on(t.workspaceId, t.name),
    check("agents_max_priority_range", sql`${t.maxPriority} between 0 and 100`),
  ],
);

export type AgentRow = typeof agents.$inferSelect;
