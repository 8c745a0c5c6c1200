import { check, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

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
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("members_workspace_email_key").on(t.workspaceId, sql`lower(${t.email})`),
    index("members_workspace_idx").on(t.workspaceId),
    check("members_role_check", sql`${t.role} in ('owner', 'admin', 'approver', 'viewer')`),
  ],
);

export type MemberRow = typeof members.$inferSelect;
