import { check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * A WebAuthn challenge for one decision: one member, one approval, one verdict. Deciding
 * deletes it (single use) and refuses it once `expires_at` has passed; an assertion over any
 * other challenge, or for another approval or verdict, decides nothing.
 */
export const decisionChallenges = pgTable(
  "decision_challenges",
  {
    /** base64url, 32 random bytes: what the authenticator signs (inside clientDataJSON). */
    challenge: text("challenge").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    memberId: text("member_id").notNull(),
    approvalId: text("approval_id").notNull(),
    decision: text("decision", { enum: ["approve", "deny"] }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("decision_challenges_member_idx").on(t.memberId),
    check("decision_challenges_decision_check", sql`${t.decision} in ('approve', 'deny')`),
  ],
);

export type DecisionChallengeRow = typeof decisionChallenges.$inferSelect;
