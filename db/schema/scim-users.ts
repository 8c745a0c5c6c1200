import { boolean, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { users } from "./users";

/**
 * A person as the identity provider provisioned them (a SCIM User). While `active`, the person is
 * the member `member_id` of the workspace; deactivated, that member row is gone (sessions, live
 * streams and pending votes with it) and comes back with the same id when reactivated.
 */
export const scimUsers = pgTable(
  "scim_users",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    userName: text("user_name").notNull(),
    externalId: text("external_id"),
    displayName: text("display_name"),
    givenName: text("given_name"),
    familyName: text("family_name"),
    email: text("email").notNull(),
    active: boolean("active").notNull(),
    /** The member this person is (or was, while deactivated): kept so a reactivation restores the same member id. No foreign key on purpose. */
    memberId: text("member_id").notNull(),
    /** The sign-in identity the member had when deactivated, restored with it. */
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    uniqueIndex("scim_users_workspace_user_name_key").on(t.workspaceId, sql`lower(${t.userName})`),
    uniqueIndex("scim_users_workspace_member_key").on(t.workspaceId, t.memberId),
    index("scim_users_workspace_external_idx").on(t.workspaceId, t.externalId),
  ],
);

export type ScimUserRow = typeof scimUsers.$inferSelect;
