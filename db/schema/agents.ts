import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
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
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("agents_workspace_name_key").on(t.workspaceId, t.name)],
);

export type AgentRow = typeof agents.$inferSelect;
