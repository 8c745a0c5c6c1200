import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * Where a workspace wants its events delivered (SPEC §6). Filters are null for "all". The
 * previous secret stays valid (both signatures are sent) until `previous_secret_expires_at`.
 * Both secrets are stored sealed under AGENTDRAFT_ENCRYPTION_KEYS.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    /** null: every event type. */
    eventTypes: text("event_types").array(),
    /** null: events of every agent (and events of no agent). */
    agentIds: text("agent_ids").array(),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true, mode: "date" }),
    enabled: boolean("enabled").notNull().default(true),
    disabledReason: text("disabled_reason"),
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
    /** Set at the first failed attempt after a success; cleared by a success. */
    failingSince: timestamp("failing_since", { withTimezone: true, mode: "date" }),
    /** Deliveries in a row that used up every attempt; reset by a success. */
    consecutiveExhausted: integer("consecutive_exhausted").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    index("webhook_endpoints_workspace_idx").on(t.workspaceId, t.id),
    // Sealed (`v1.<key id>...`, lib/platform/crypto/secret-box.ts); `whsec_...` only in rows written before 0047, until `db migrate` seals them.
    check("webhook_endpoints_secret_check", sql`${t.secret} like 'v1.%' or ${t.secret} like 'whsec_%'`),
  ],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
