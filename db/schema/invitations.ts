import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** An invitation to join a workspace; the token is mailed once, only its SHA-256 is stored. */
export const invitations = pgTable(
  "invitations",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    /** `owner` only from the operator CLI (`agentdraft member invite --role owner`), never from the web app. */
    role: text("role", { enum: ["owner", "admin", "approver", "viewer"] }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    memberId: text("member_id"),
    /**
     * When the link went out through a mail provider: only the invitee's mailbox holds it (the
     * stored copy is redacted), so accepting it proves the address. Null: it was captured (admins
     * can read it) or handed over by the CLI, and accepting it proves nothing about the address.
     */
    linkSentAt: timestamp("link_sent_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_key").on(t.tokenHash),
    index("invitations_workspace_idx").on(t.workspaceId),
    check("invitations_role_check", sql`${t.role} in ('owner', 'admin', 'approver', 'viewer')`),
  ],
);

export type InvitationRow = typeof invitations.$inferSelect;
