import { index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** A bookable resource: a person, a room, a staging cluster. Its row is the lock holds take. */
export const calendars = pgTable(
  "calendars",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    timezone: text("timezone").notNull().default("UTC"),
    createdAt: createdAt(),
  },
  (t) => [index("calendars_workspace_idx").on(t.workspaceId, t.id)],
);

export type CalendarRow = typeof calendars.$inferSelect;
