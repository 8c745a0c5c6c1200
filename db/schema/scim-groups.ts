import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** A group the identity provider pushed (a SCIM Group). Groups named `agentdraft-<role>` set their members' role (lib/domains/scim/roles.ts). */
export const scimGroups = pgTable(
  "scim_groups",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    displayName: text("display_name").notNull(),
    externalId: text("external_id"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    uniqueIndex("scim_groups_workspace_display_name_key").on(t.workspaceId, sql`lower(${t.displayName})`),
    index("scim_groups_workspace_external_idx").on(t.workspaceId, t.externalId),
  ],
);

export type ScimGroupRow = typeof scimGroups.$inferSelect;
