import { check, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { users } from "./users";

export const MEMBER_ROLES = ["owner", "admin", "approver", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A human in a workspace. Sign-in identities (passkeys, sessions) attach to members in the web app. */
export const members = pgTable(
  "members",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    name: text("name"),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    /** The signed-in identity of this member; null for members created outside the web app (CLI). */
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("members_workspace_email_key").on(t.workspaceId, sql`lower(${t.email})`),
    index("members_workspace_idx").on(t.workspaceId),
    uniqueIndex("members_workspace_user_key").on(t.workspaceId, t.userId),
    index("members_user_idx").on(t.userId),
    check("members_role_check", sql`${t.role} in ('owner', 'admin', 'approver', 'viewer')`),
  ],
);

export type MemberRow = typeof members.$inferSelect;
