import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { acquireLeaseInput, leaseSchema, leaseVerificationSchema, listLeasesQuery, renewLeaseInput, verifyLeaseInput } from "./schemas";

const tag = "Leases";
/** Taking, renewing, releasing and reading leases needs the leases scope (a key without it: 403 insufficient_scope). */
const scope = "leases" as const;

export const acquireLeaseOp = defineOperation({
  method: "POST",
  path: "/v1/leases",
  operationId: "acquireLease",
  summary: "Acquire an exclusive lease on a named resource",
  description:
    "201 with a fencing_token that strictly increases per resource (across releases and expiries). 409 lease_conflict while another lease on the resource is live " +
    "(leases are exclusive: a higher priority does not preempt); the conflict names the live lease's id, priority and expiry (its agent only to workspace-wide keys and that agent), never its fencing token. 403 priority_above_ceiling above the agent's max_priority. Expiry is exact: the lease is dead the instant expires_at passes. " +
    "While the agent is tainted (it read untrusted mail within the workspace's taint window, whatever headers the request carries; a trace that starts at untrusted mail adds taint, never removes it), a workspace policy (action class lease.acquire, untrusted_trace, min_priority) answers 403 approval_required naming the approval it opened; once approved, the same request with the AgentDraft-Approval-Id header spends it on exactly that lease, in the transaction that makes it. A lease_conflict leaves the approval unspent.",
  tag,
  scope,
  body: acquireLeaseInput,
  responses: { 201: { description: "The lease", schema: leaseSchema } },
});

export const listLeasesOp = defineOperation({
  method: "GET",
  path: "/v1/leases",
  operationId: "listLeases",
  summary: "List leases, newest first",
  description: "status=active lists leases live now. An agent-bound key sees only its own agent's leases.",
  tag,
  scope,
  query: listLeasesQuery,
  responses: { 200: { description: "A page of leases", schema: listOf(leaseSchema) } },
});

export const getLeaseOp = defineOperation({
  method: "GET",
  path: "/v1/leases/{id}",
  operationId: "getLease",
  summary: "Retrieve a lease",
  tag,
  scope,
  responses: { 200: { description: "The lease", schema: leaseSchema } },
});

export const renewLeaseOp = defineOperation({
  method: "POST",
  path: "/v1/leases/{id}/renew",
  operationId: "renewLease",
  summary: "Heartbeat: keep a live lease for another TTL from now (same fencing token)",
  description: "409 lease_expired if its TTL passed, lease_not_active if released.",
  tag,
  scope,
  body: renewLeaseInput,
  responses: { 200: { description: "The lease", schema: leaseSchema } },
});

export const releaseLeaseOp = defineOperation({
  method: "POST",
  path: "/v1/leases/{id}/release",
  operationId: "releaseLease",
  summary: "Release a live lease, freeing the resource",
  description: "Releasing twice answers the released lease again. 409 lease_expired if its TTL passed first.",
  tag,
  scope,
  responses: { 200: { description: "The released lease", schema: leaseSchema } },
});

export const verifyLeaseOp = defineOperation({
  method: "POST",
  path: "/v1/leases/verify",
  operationId: "verifyLease",
  summary: "Check a fencing token: is it the newest for the resource, and its lease live?",
  description: "For the system a lease holder writes to: refuse a write whose token is not valid (a stale holder's late write).",
  tag,
  scope,
  body: verifyLeaseInput,
  responses: { 200: { description: "The verdict", schema: leaseVerificationSchema } },
});
