import { bigint, bigserial, customType, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** Postgres `xid8`: a transaction id that never wraps around. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

/**
 * The append-only audit trail (SPEC §8). Writers append entries in the same transaction as
 * the change they record, unchained; the sealer (lib/platform/audit/seal-chain.ts) then gives them
 * their per-workspace `seq` and hash chain, hash = sha256(prev_hash || canonical JSON), in
 * commit order. A trigger refuses DELETE and TRUNCATE, and every UPDATE except the sealer's
 * one-time setting of the chain columns on an unsealed entry.
 */
export const auditEntries = pgTable(
  "audit_entries",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "restrict" }),
    /** Set by the sealer; null until then. */
    seq: bigint("seq", { mode: "number" }),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    actorType: text("actor_type", { enum: ["key", "member", "operator", "system"] }).notNull(),
    actorId: text("actor_id").notNull(),
    /** The agent that acted (agent-bound key) or that the resource belongs to. */
    agentId: text("agent_id"),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    traceId: text("trace_id"),
    requestId: text("request_id"),
    summary: jsonb("summary").$type<Record<string, unknown>>().notNull(),
    outcome: text("outcome", { enum: ["succeeded", "failed", "rejected"] }).notNull(),
    prevHash: text("prev_hash"),
    hash: text("hash"),
    /** Insertion order, the order entries of one sealing round are chained in. */
    position: bigserial("position", { mode: "number" }).notNull(),
    /** The writing transaction (kept for forensics; sealing goes by what has committed, per workspace). */
    txid: xid8("txid").notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [
    uniqueIndex("audit_entries_workspace_seq_key").on(t.workspaceId, t.seq),
    index("audit_entries_workspace_resource_idx").on(t.workspaceId, t.resourceId),
    index("audit_entries_workspace_agent_idx").on(t.workspaceId, t.agentId, t.seq),
    index("audit_entries_workspace_trace_idx").on(t.workspaceId, t.traceId),
    index("audit_entries_workspace_at_idx").on(t.workspaceId, t.at),
    /**
     * A workspace's sealer finds its own unsealed entries without passing another's (migration 0054: where the migrator may);
     * the sweep that lists workspaces with unsealed entries reads it too (0072 dropped the one on position alone, which only added writes).
     */
    index("audit_entries_unsealed_workspace_idx").on(t.workspaceId, t.position).where(sql`${t.hash} is null`),
  ],
);

export type AuditEntryRow = typeof auditEntries.$inferSelect;
