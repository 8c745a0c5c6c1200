import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
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
     * stream's total order (lib/events/read-events.ts). Set by the database, never by a caller.
     */
    txid: bigint("txid", { mode: "number" })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [
    index("webhook_events_workspace_idx").on(t.workspaceId, t.id),
    index("webhook_events_type_idx").on(t.workspaceId, t.type),
    index("webhook_events_stream_idx").on(t.workspaceId, t.txid, t.seq),
    index("webhook_events_pending_fan_out_idx").on(t.id).where(sql`${t.fannedOutAt} is null`),
  ],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;
