import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * The transactional outbox (SPEC §6): one row per event, written in the same transaction as
 * the state change that caused it, so a crash can delay a webhook but never lose it.
 * Delivery to endpoints reads from here.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    /** The agent the event concerns, for endpoints filtered to agents. */
    agentId: text("agent_id"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    traceId: text("trace_id"),
    createdAt: createdAt(),
    /** When fan-out turned this event into deliveries; null while it waits. */
    fannedOutAt: timestamp("fanned_out_at", { withTimezone: true, mode: "date" }),
    /**
     * The writing transaction's id (64-bit, never wraps) and the event's place in it: the event
     * stream's total order (lib/domains/events/read-events.ts). Set by the database, never by a caller.
     */
    txid: bigint("txid", { mode: "number" })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    /**
     * The event's place in its workspace's stream (lib/domains/events/read-events.ts): null until the
     * workspace's sealer numbers it, after its transaction committed, in commit order.
     */
    position: bigint("position", { mode: "number" }),
  },
  (t) => [
    index("webhook_events_workspace_idx").on(t.workspaceId, t.id),
    index("webhook_events_type_idx").on(t.workspaceId, t.type),
    index("webhook_events_stream_idx").on(t.workspaceId, t.txid, t.seq),
    uniqueIndex("webhook_events_position_key").on(t.workspaceId, t.position),
    index("webhook_events_unsealed_idx").on(t.workspaceId, t.txid, t.seq).where(sql`${t.position} is null`),
    index("webhook_events_pending_fan_out_idx").on(t.id).where(sql`${t.fannedOutAt} is null`),
  ],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/**
 * Each workspace's event stream head: the last position its sealer gave. Sealing locks this
 * row, so one workspace's sealers run one at a time and commit in order, and no other
 * workspace's sealer or reader ever waits on it.
 */
export const eventStreamHeads = pgTable("event_stream_heads", {
  workspaceId: text("workspace_id")
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  position: bigint("position", { mode: "number" }).notNull().default(0),
});
