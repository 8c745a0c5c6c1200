import { check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { agents } from "./agents";

export const HANDOFF_STATUSES = ["pending", "claimed", "completed", "dead", "expired"] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/**
 * A typed piece of work one agent hands to another (SPEC §16): the envelope (routing, ids,
 * state, timestamps). The body lives apart in handoff_bodies, so listing never reads it.
 * A claim is live while status = 'claimed' and claim_expires_at is in the future; each claim
 * counts one attempt and carries its own claim_id, the fencing token complete and fail need.
 */
export const handoffs = pgTable(
  "handoffs",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    fromAgentId: text("from_agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    toAgentId: text("to_agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
    /** The root handoff's id unless the sender gave one: every handoff of one job shares it. */
    correlationId: text("correlation_id").notNull(),
    parentId: text("parent_id"),
    /** The x-trace-id of the request that created it, else its parent's, else its correlation id. */
    traceId: text("trace_id").notNull(),
    status: text("status", { enum: HANDOFF_STATUSES }).notNull(),
    /** Claims so far; the live claim's number while claimed. */
    attempt: integer("attempt").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    claimId: text("claim_id"),
    claimWorker: text("claim_worker"),
    claimedAt: timestamp("claimed_at", { withTimezone: true, mode: "date" }),
    claimExpiresAt: timestamp("claim_expires_at", { withTimezone: true, mode: "date" }),
    /** The sender's deadline: past it the handoff is expired, whatever its state. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    result: jsonb("result").$type<unknown>(),
    lastError: jsonb("last_error").$type<{ message: string; details?: Record<string, unknown>; attempt: number } | null>(),
    /** Why it is dead: failed (the worker said no retry), attempts (max_attempts used up). */
    deadReason: text("dead_reason"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("handoffs_workspace_idx").on(t.workspaceId, t.id),
    index("handoffs_to_status_idx").on(t.workspaceId, t.toAgentId, t.status, t.id),
    index("handoffs_from_idx").on(t.workspaceId, t.fromAgentId, t.id),
    index("handoffs_correlation_idx").on(t.workspaceId, t.correlationId),
    index("handoffs_trace_idx").on(t.workspaceId, t.traceId),
    index("handoffs_parent_idx").on(t.parentId),
    index("handoffs_claim_expiry_idx").on(t.claimExpiresAt).where(sql`${t.status} = 'claimed'`),
    index("handoffs_expiry_idx").on(t.expiresAt).where(sql`${t.status} in ('pending', 'claimed') and ${t.expiresAt} is not null`),
    check("handoffs_status_check", sql`${t.status} in ('pending', 'claimed', 'completed', 'dead', 'expired')`),
    check("handoffs_attempts_check", sql`${t.maxAttempts} between 1 and 100 and ${t.attempt} between 0 and ${t.maxAttempts}`),
  ],
);

/** The body of a handoff, kept apart from its envelope. */
export const handoffBodies = pgTable("handoff_bodies", {
  handoffId: text("handoff_id")
    .primaryKey()
    .references(() => handoffs.id, { onDelete: "cascade" }),
  workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
  body: jsonb("body").$type<unknown>().notNull(),
});

export type HandoffRow = typeof handoffs.$inferSelect;
