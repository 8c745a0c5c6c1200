import { defineOperation } from "../api/operation";
import { traceSchema } from "./schemas";

export const getTraceOp = defineOperation({
  method: "GET",
  path: "/v1/traces/{trace_id}",
  operationId: "getTrace",
  summary: "The execution graph of a trace: handoffs as a tree, and every record in time order",
  description:
    "trace_id is a trace id (the x-trace-id of requests), a handoff's correlation id, or a handoff id. Returns the handoffs as a tree by parent, with the mail, holds, " +
    "approvals and audit entries (agent notes included) of the same trace in time order. An agent-bound key whose agent sent or received one of its handoffs sees every envelope of the graph (never another agent's bodies), and of the other records its own agent's.",
  tag: "Traces",
  scope: "handoffs",
  responses: { 200: { description: "The trace", schema: traceSchema } },
});
