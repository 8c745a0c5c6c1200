import type { Actor } from "../../platform/actor";
import { gateAction } from "../approvals";
import type { AcquireLeaseInput } from "./schemas";

export const LEASE_ACTION_CLASS = "lease.acquire";

/**
 * Acquires a lease under `lease.acquire` taint rules (lib/domains/approvals/action-gate.ts): a lease on a
 * rule's resource (if it names one) at or above its `min_priority`, asked by a tainted agent, needs
 * a person's approval, spent on exactly that lease (resource, TTL, priority). A lease_conflict
 * leaves it unspent.
 */
export function gateLease<T>(actor: Actor & { type: "key" }, input: AcquireLeaseInput, approvalId: string | null, acquire: () => Promise<T>): Promise<T> {
  const action = { type: LEASE_ACTION_CLASS, resource: input.resource, ttl_seconds: input.ttl_seconds, priority: input.priority };
  const summary = `Lease ${input.resource} for ${input.ttl_seconds} s at priority ${input.priority}`;
  return gateAction(actor, { actionClass: LEASE_ACTION_CLASS, priority: input.priority, action, summary, noun: "lease", resource: input.resource }, approvalId, acquire);
}
