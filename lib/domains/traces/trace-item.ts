/** One record on a trace's timeline: what happened, when, to which agent, and the record itself. */
export type TraceItem = {
  kind: string;
  id: string;
  at: string;
  agent_id: string | null;
  /** A line for people: the action, the subject, the type. */
  title: string;
  status: string | null;
  data: Record<string, unknown>;
};

/**
 * What a source of trace records gets: the trace's ids, the handoffs on it, and the resources its
 * audit entries name (by type), so a source can find its records by trace column or by reference.
 */
export type TraceContext = {
  workspaceId: string;
  traceIds: string[];
  handoffIds: string[];
  referenced: (resourceType: string) => string[];
  limit: number;
};

/** A source of trace records (mail, holds, approvals...): adding one to the trace is one of these in TRACE_SOURCES. */
export type TraceSource = { kind: string; collect: (ctx: TraceContext) => Promise<TraceItem[]> };
