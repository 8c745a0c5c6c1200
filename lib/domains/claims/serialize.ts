import type { MessageClaimRow } from "../../../db/schema";

export const effectiveClaimStatus = (c: Pick<MessageClaimRow, "status" | "expiresAt">, now = new Date()): MessageClaimRow["status"] =>
  c.status === "claimed" && c.expiresAt.getTime() <= now.getTime() ? "expired" : c.status;

export function serializeClaim(c: MessageClaimRow, now = new Date()) {
  const status = effectiveClaimStatus(c, now);
  return {
    id: c.id,
    object: "message_claim" as const,
    message_id: c.messageId,
    inbox_id: c.inboxId,
    agent_id: c.agentId,
    worker: c.worker,
    status,
    ttl_seconds: c.ttlSeconds,
    expires_at: c.expiresAt.toISOString(),
    created_at: c.createdAt.toISOString(),
    ended_at: c.endedAt?.toISOString() ?? (status === "expired" ? c.expiresAt.toISOString() : null),
  };
}
