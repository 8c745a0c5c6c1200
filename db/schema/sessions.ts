import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";

/** Database sessions (Auth.js): signing out everywhere deletes a user's rows. */
export const sessions = pgTable(
  "sessions",
  {
    sessionToken: text("session_token").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expires: timestamp("expires", { withTimezone: true, mode: "date" }).notNull(),
    /** When this session last proved a passkey (sign-in, or a confirmation since): passkey changes need it recent. */
    authenticatedAt: timestamp("authenticated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
    /** How the session began: a passkey (Auth.js) or an SSO sign-in. A domain that requires SSO lets only the latter register a passkey. */
    signedInVia: text("signed_in_via", { enum: ["passkey", "sso"] }).default("passkey").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);
