import type { HandoffRow } from "../../../db/schema";

/** The envelope: routing, ids, state and timestamps, never the body (SQL twin: agentdraft_handoff_json). */
export function serializeHandoff(h: HandoffRow) {
  return {
    id: h.id,
    object: "handoff" as const,
    type: h.type,
    from_agent_id: h.fromAgentId,
    to_agent_id: h.toAgentId,
    correlation_id: h.correlationId,
    parent_id: h.parentId,
    trace_id: h.traceId,
    status: h.status,
    attempt: h.attempt,
    max_attempts: h.maxAttempts,
    claim:
      h.status === "claimed" && h.claimedAt && h.claimExpiresAt
        ? { worker: h.claimWorker, claimed_at: h.claimedAt.toISOString(), expires_at: h.claimExpiresAt.toISOString() }
        : null,
    expires_at: h.expiresAt?.toISOString() ?? null,
    last_error: h.lastError ?? null,
    dead_reason: (h.deadReason as "failed" | "attempts" | null) ?? null,
    created_at: h.createdAt.toISOString(),
    updated_at: h.updatedAt.toISOString(),
    ended_at: h.endedAt?.toISOString() ?? null,
  };
}

/** The envelope with the body and the result. */
export const serializeHandoffWithBody = (h: HandoffRow, body: unknown) => ({ ...serializeHandoff(h), body, result: h.result ?? null });
