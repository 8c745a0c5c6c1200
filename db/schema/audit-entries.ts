import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * The append-only audit trail (SPEC §8). A trigger refuses UPDATE, DELETE and TRUNCATE.
 * Entries form a per-workspace hash chain: hash = sha256(prev_hash || canonical JSON).
 */
export const auditEntries = pgTable(
  "audit_entries",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "restrict" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
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
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    uniqueIndex("audit_entries_workspace_seq_key").on(t.workspaceId, t.seq),
    index("audit_entries_workspace_resource_idx").on(t.workspaceId, t.resourceId),
    index("audit_entries_workspace_agent_idx").on(t.workspaceId, t.agentId, t.seq),
    index("audit_entries_workspace_trace_idx").on(t.workspaceId, t.traceId),
    index("audit_entries_workspace_at_idx").on(t.workspaceId, t.at),
  ],
);

export type AuditEntryRow = typeof auditEntries.$inferSelect;
