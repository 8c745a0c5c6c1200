import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { ssoConnections } from "./sso-connections";

/**
 * A SAML AuthnRequest we sent and await the answer to: the response's InResponseTo must name
 * one. Deleted when a response uses it (accepted once); expires in minutes.
 */
export const ssoSamlRequests = pgTable(
  "sso_saml_requests",
  {
    /** The AuthnRequest's ID (`_` and 160 random bits, hex). */
    id: text("id").primaryKey(),
    connectionId: text("connection_id")
      .notNull()
      .references(() => ssoConnections.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    /** Where to go after signing in (a path of this app). */
    next: text("next").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("sso_saml_requests_expires_idx").on(t.expiresAt)],
);

export type SsoSamlRequestRow = typeof ssoSamlRequests.$inferSelect;
