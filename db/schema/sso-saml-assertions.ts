import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { ssoConnections } from "./sso-connections";

/**
 * The ID of each SAML assertion a connection accepted, kept until the assertion's NotOnOrAfter:
 * the primary key refuses the same assertion a second time (a replayed response).
 */
export const ssoSamlAssertions = pgTable(
  "sso_saml_assertions",
  {
    connectionId: text("connection_id")
      .notNull()
      .references(() => ssoConnections.id, { onDelete: "cascade" }),
    assertionId: text("assertion_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.assertionId] }), index("sso_saml_assertions_expires_idx").on(t.expiresAt)],
);
