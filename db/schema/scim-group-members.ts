import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { scimGroups } from "./scim-groups";
import { scimUsers } from "./scim-users";

/** Who is in which SCIM group. */
export const scimGroupMembers = pgTable(
  "scim_group_members",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    scimUserId: text("scim_user_id")
      .notNull()
      .references(() => scimUsers.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.scimUserId] }), index("scim_group_members_user_idx").on(t.scimUserId)],
);
