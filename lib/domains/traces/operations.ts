import { defineOperation } from "../../platform/api/operation";
import { traceSchema } from "./schemas";

export const getTraceOp = defineOperation({
  method: "GET",
  path: "/v1/traces/{trace_id}",
  operationId: "getTrace",
  summary: "The execution graph of a trace: handoffs as a tree, and every record in time order",
  description:
    "trace_id is a trace id (the x-trace-id of requests), a handoff's correlation id, or a handoff id. Returns the handoffs as a tree by parent, with the mail, holds, " +
    "leases, approvals and audit entries (agent notes included) of the same trace in time order, of the kinds the key's scopes read (mail: mail, holds: calendar, approvals: approvals, audit entries: audit). " +
    "A trace belongs to its workspace: an agent-bound key reads it only if its agent started it or sent or received one of its handoffs, and then sees every envelope of the graph (never another agent's bodies) and of the other records its own agent's; to other agents it is not found.",
  tag: "Traces",
  scope: "handoffs",
  responses: { 200: { description: "The trace", schema: traceSchema } },
});
