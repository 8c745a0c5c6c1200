import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { ssoConnections } from "./sso-connections";

/**
 * An SSO sign-in under way: what the callback checks (state, nonce, PKCE verifier), kept on the
 * server. Deleted when the callback uses it, so a callback is accepted once; expires in minutes.
 */
export const ssoSignIns = pgTable(
  "sso_sign_ins",
  {
    /** The OAuth `state`: 256 random bits, also in the browser's httpOnly cookie. */
    state: text("state").primaryKey(),
    connectionId: text("connection_id")
      .notNull()
      .references(() => ssoConnections.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    /** Where to go after signing in (a path of this app). */
    next: text("next").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sso_sign_ins_expires_idx").on(t.expiresAt)],
);

export type SsoSignInRow = typeof ssoSignIns.$inferSelect;
