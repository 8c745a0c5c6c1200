import type { AgentDraftClient } from "./client.js";
import { unwrap } from "./errors.js";
import type { components } from "./schema.js";

export type Lease = components["schemas"]["Lease"];
export type MessageClaim = components["schemas"]["MessageClaim"];

export type LeaseOptions = {
  resource: string;
  ttlSeconds: number;
  priority?: number;
  metadata?: Record<string, unknown>;
  /** How often to renew while `fn` runs; default a third of the TTL. */
  renewEveryMs?: number;
};

/**
 * Runs `fn` holding an exclusive lease on `resource` (POST /v1/leases), renewing it in the
 * background and releasing it afterwards. `fn` gets the lease (send `fencing_token` with every
 * write to the resource) and a signal aborted if a renewal fails (the lease may be lost: stop
 * writing). Throws AgentDraftError `lease_conflict` when another lease is live.
 */
export async function withLease<T>(client: AgentDraftClient, options: LeaseOptions, fn: (lease: Lease, signal: AbortSignal) => Promise<T>): Promise<T> {
  const lease = unwrap(
    await client.POST("/v1/leases", { body: { resource: options.resource, ttl_seconds: options.ttlSeconds, priority: options.priority, metadata: options.metadata } }),
  );
  const lost = new AbortController();
  const every = options.renewEveryMs ?? Math.max(250, (options.ttlSeconds * 1000) / 3);
  const timer = setInterval(async () => {
    try {
      unwrap(await client.POST("/v1/leases/{id}/renew", { params: { path: { id: lease.id } }, body: {} }));
    } catch (err) {
      clearInterval(timer);
      lost.abort(err);
    }
  }, every);
  try {
    return await fn(lease, lost.signal);
  } finally {
    clearInterval(timer);
    if (!lost.signal.aborted) await client.POST("/v1/leases/{id}/release", { params: { path: { id: lease.id } } }).catch(() => undefined);
  }
}

/**
 * Handles a received message exclusively (POST /v1/messages/{id}/claim): runs `fn`, then marks
 * the message completed, or releases it for another worker if `fn` throws. Throws
 * AgentDraftError `message_claimed` / `message_completed` when it is not this worker's to take
 * (another worker's claim, even one sharing this key). `worker` names this worker in the claim.
 */
export async function withClaim<T>(client: AgentDraftClient, messageId: string, ttlSeconds: number, fn: (claim: MessageClaim) => Promise<T>, worker?: string): Promise<T> {
  const claim = unwrap(await client.POST("/v1/messages/{id}/claim", { params: { path: { id: messageId } }, body: { ttl_seconds: ttlSeconds, ...(worker ? { worker } : {}) } }));
  let result: T;
  try {
    result = await fn(claim);
  } catch (err) {
    await client.POST("/v1/messages/{id}/release", { params: { path: { id: messageId } }, body: { claim_id: claim.id } }).catch(() => undefined);
    throw err;
  }
  unwrap(await client.POST("/v1/messages/{id}/complete", { params: { path: { id: messageId } }, body: { claim_id: claim.id } }));
  return result;
}
