import { pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * Who a trace id belongs to (SPEC §16): the workspace, and the agent, that first used it for a
 * handoff, a note or local mail. The same string in another workspace is another trace. An
 * agent-bound key attaches to or reads a trace only if its agent started it or sent or received
 * one of its handoffs (lib/platform/traces/trace-access.ts). agent_id is null for a trace started by a
 * workspace-wide key or by AgentDraft itself. No foreign key on the agent: the trace outlives it.
 */
export const traces = pgTable(
  "traces",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    traceId: text("trace_id").notNull(),
    agentId: text("agent_id"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.traceId] })],
);

export type TraceRow = typeof traces.$inferSelect;
