import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";

export const workspaces = pgTable("workspaces", {
  id: idColumn(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export type WorkspaceRow = typeof workspaces.$inferSelect;
