import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

export const LEASE_STATUSES = ["active", "released", "expired"] as const;
export type LeaseStatus = (typeof LEASE_STATUSES)[number];

/**
 * A named resource of a workspace that leases are taken on (SPEC §12): the row every acquisition
 * locks, and the last fencing token it handed out (tokens strictly increase per resource).
 */
export const leaseResources = pgTable(
  "lease_resources",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    resource: text("resource").notNull(),
    lastFencingToken: bigint("last_fencing_token", { mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.resource] })],
);

/**
 * An exclusive lease on a named resource. Live while status = 'active' and expires_at is in the
 * future by the database clock, in every query; the expiry job only records the fact.
 */
export const leases = pgTable(
  "leases",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    resource: text("resource").notNull(),
    agentId: text("agent_id"),
    apiKeyId: text("api_key_id"),
    fencingToken: bigint("fencing_token", { mode: "number" }).notNull(),
    priority: integer("priority").notNull(),
    ttlSeconds: integer("ttl_seconds").notNull(),
    status: text("status", { enum: LEASE_STATUSES }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
    renewedAt: timestamp("renewed_at", { withTimezone: true, mode: "date" }),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("leases_workspace_idx").on(t.workspaceId, t.id),
    // The safety net: one active row per resource (a past-TTL row is marked expired before the next is written).
    uniqueIndex("leases_one_active_key").on(t.workspaceId, t.resource).where(sql`${t.status} = 'active'`),
    uniqueIndex("leases_token_key").on(t.workspaceId, t.resource, t.fencingToken),
    index("leases_active_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'active'`),
    check("leases_priority_range", sql`${t.priority} between 0 and 100`),
    check("leases_status_check", sql`${t.status} in ('active', 'released', 'expired')`),
  ],
);

export type LeaseRow = typeof leases.$inferSelect;

export const MESSAGE_CLAIM_STATUSES = ["claimed", "released", "completed", "expired"] as const;
export type MessageClaimStatus = (typeof MESSAGE_CLAIM_STATUSES)[number];

/**
 * One worker's exclusive handling of a received message (SPEC §12). Live while status =
 * 'claimed' and expires_at is in the future; a completed claim ends the message's handling.
 */
export const messageClaims = pgTable(
  "message_claims",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    messageId: text("message_id").notNull(),
    inboxId: text("inbox_id").notNull(),
    agentId: text("agent_id"),
    apiKeyId: text("api_key_id"),
    /** The worker's name, as it gave it (shown in the claim); the claim's id is what proves it holds the claim. */
    worker: text("worker"),
    status: text("status", { enum: MESSAGE_CLAIM_STATUSES }).notNull(),
    ttlSeconds: integer("ttl_seconds").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("message_claims_message_idx").on(t.messageId, t.id),
    index("message_claims_workspace_idx").on(t.workspaceId, t.id),
    // One claim per message that is (or may still be) handling it; a completed one is final.
    uniqueIndex("message_claims_one_open_key").on(t.messageId).where(sql`${t.status} in ('claimed', 'completed')`),
    index("message_claims_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'claimed'`),
    check("message_claims_status_check", sql`${t.status} in ('claimed', 'released', 'completed', 'expired')`),
  ],
);

export type MessageClaimRow = typeof messageClaims.$inferSelect;
