import { check, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt } from "./columns";
import { users } from "./users";

/**
 * A one-time code mailed, through a mail provider only, to prove a user's email address. Only
 * its SHA-256 is kept (and the sent mail is stored redacted); it expires, and a few wrong
 * guesses spend it.
 */
export const emailProofs = pgTable(
  "email_proofs",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [check("email_proofs_attempts_check", sql`${t.attempts} >= 0`)],
);

export type EmailProofRow = typeof emailProofs.$inferSelect;
