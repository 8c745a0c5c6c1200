import { boolean, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * A workspace's OpenID Connect identity provider (one per workspace): people of its verified
 * domains sign in through it. The client secret is sealed (lib/platform/crypto/secret-box.ts).
 */
export const ssoConnections = pgTable(
  "sso_connections",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    /** The issuer as its discovery document names it. */
    issuer: text("issuer").notNull(),
    clientId: text("client_id").notNull(),
    clientSecretSealed: text("client_secret_sealed").notNull(),
    /** Whether a person of a verified domain who is not a member yet joins as a viewer on first sign-in (else only members may sign in). */
    justInTime: boolean("just_in_time").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [uniqueIndex("sso_connections_workspace_key").on(t.workspaceId)],
);

export type SsoConnectionRow = typeof ssoConnections.$inferSelect;
