import { boolean, check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { ssoConnections } from "./sso-connections";
import { workspaces } from "./workspaces";

/**
 * An email domain an SSO connection covers. A name belongs to one workspace at most (the unique
 * index decides racing claims); it routes sign-ins only once its DNS TXT record is verified.
 */
export const ssoDomains = pgTable(
  "sso_domains",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    connectionId: text("connection_id")
      .notNull()
      .references(() => ssoConnections.id, { onDelete: "cascade" }),
    /** Lower-case ASCII (IDNs in punycode), no trailing dot. */
    name: text("name").notNull(),
    /** The value of the TXT record at `_agentdraft.<name>`: `agentdraft-verification=<token>`. */
    verificationToken: text("verification_token").notNull(),
    verifiedAt: timestamp("verified_at", { withTimezone: true, mode: "date" }),
    /** Passkey sign-in is refused for emails of this domain: its people sign in with SSO. */
    requireSso: boolean("require_sso").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("sso_domains_name_key").on(sql`lower(${t.name})`),
    index("sso_domains_connection_idx").on(t.connectionId),
    check("sso_domains_name_length", sql`char_length(${t.name}) between 3 and 253`),
    check("sso_domains_require_verified", sql`not ${t.requireSso} or ${t.verifiedAt} is not null`),
  ],
);

export type SsoDomainRow = typeof ssoDomains.$inferSelect;
