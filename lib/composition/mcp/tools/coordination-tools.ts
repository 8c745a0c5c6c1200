import { acquireLease } from "../../../domains/leases/acquire-lease";
import { gateLease } from "../../../domains/leases/lease-gate";
import { changeLease } from "../../../domains/leases/change-lease";
import { getLease, listLeases, verifyFencingToken } from "../../../domains/leases/get-lease";
import { acquireLeaseInput, listLeasesQuery, renewLeaseInput, verifyLeaseInput } from "../../../domains/leases/schemas";
import { serializeLease } from "../../../domains/leases/serialize";
import { changeClaim } from "../../../domains/claims/claim-message";
import { claimMessageInput, endClaimInput } from "../../../domains/claims/schemas";
import { serializeClaim } from "../../../domains/claims/serialize";
import { READ_ONLY, approvalIdArg, defineTool, idArg, idempotencyKeyArg } from "../define-tool";

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

export const acquireLeaseTool = defineTool({
  name: "acquire_lease",
  scope: "leases",
  title: "Acquire a lease",
  description:
    "Take an exclusive lease on a named resource (deploy:staging, repo:web) for ttl_seconds. Returns a fencing_token that strictly increases per resource: " +
    "send it with every write to the resource so a stale holder's late write can be refused. Fails with lease_conflict while another lease is live " +
    "(a higher priority does not preempt), priority_above_ceiling above your agent's ceiling. Renew to keep it; release when done. " +
    "Once this agent has read untrusted mail (the server records what it reads) a workspace policy may answer approval_required with an approval opened for you: await it, then call again with the same lease and approval_id.",
  input: { ...acquireLeaseInput.shape, approval_id: approvalIdArg, idempotency_key: idempotencyKeyArg },
  annotations: WRITE,
  write: ({ approval_id: _a, ...body }) => ({ path: "/v1/leases", body, status: 201 }),
  run: async ({ actor }, { approval_id, ...args }) => {
    const input = acquireLeaseInput.parse(args);
    return serializeLease(await gateLease(actor, input, approval_id ?? null, () => acquireLease(actor, input)));
  },
});

export const renewLeaseTool = defineTool({
  name: "renew_lease",
  scope: "leases",
  title: "Renew a lease",
  description: "Heartbeat: keep a live lease for another TTL from now, with the same fencing token. Fails with lease_expired if its TTL passed (acquire a new one), lease_not_active if released.",
  input: { lease_id: idArg("lease_..."), ...renewLeaseInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: WRITE,
  write: ({ lease_id, ...body }) => ({ path: `/v1/leases/${lease_id}/renew`, body }),
  run: async ({ actor }, { lease_id, ttl_seconds }) => serializeLease(await changeLease(actor, lease_id, "renew", ttl_seconds)),
});

export const releaseLeaseTool = defineTool({
  name: "release_lease",
  scope: "leases",
  title: "Release a lease",
  description: "Free the resource now. Releasing twice returns the released lease again.",
  input: { lease_id: idArg("lease_..."), idempotency_key: idempotencyKeyArg },
  annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
  write: ({ lease_id }) => ({ path: `/v1/leases/${lease_id}/release` }),
  run: async ({ actor }, { lease_id }) => serializeLease(await changeLease(actor, lease_id, "release")),
});

export const getLeaseTool = defineTool({
  name: "get_lease",
  scope: "leases",
  title: "Get a lease",
  description: "Retrieve one of your leases: status (active, released, expired), fencing token, expiry.",
  input: { lease_id: idArg("lease_...") },
  annotations: READ_ONLY,
  run: ({ key }, { lease_id }) => getLease(key, lease_id),
});

export const listLeasesTool = defineTool({
  name: "list_leases",
  scope: "leases",
  title: "List leases",
  description: "Your leases (all of the workspace's for a workspace-wide key), newest first; status=active for the live ones, resource to filter.",
  input: listLeasesQuery.shape,
  annotations: READ_ONLY,
  run: async ({ key }, args) => {
    const { items, hasMore } = await listLeases(key, listLeasesQuery.parse(args));
    return { object: "list", data: items, has_more: hasMore };
  },
});

export const verifyLeaseTool = defineTool({
  name: "verify_fencing_token",
  scope: "leases",
  title: "Verify a fencing token",
  description: "Is this fencing token still the newest for the resource, and its lease live? valid: true means a write carrying it may proceed.",
  input: verifyLeaseInput.shape,
  annotations: READ_ONLY,
  run: ({ key }, args) => verifyFencingToken(key.workspaceId, verifyLeaseInput.parse(args)),
});

export const claimMessageTool = defineTool({
  name: "claim_message",
  title: "Claim a message",
  description:
    "Take exclusive handling of a received message for ttl_seconds, so no other worker answers it too. Fails with message_claimed while another worker's claim is live, " +
    "message_completed once handled (also when you claimed it before without claim_id: each claim is one worker's). Renew with the claim's id as claim_id. Complete it when handled, or release it to give it back, with claim_id. " +
    "List free messages with list_messages and claimable=true.",
  scope: "mail",
  input: { message_id: idArg("msg_..."), ...claimMessageInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: WRITE,
  write: ({ message_id, ...body }) => ({ path: `/v1/messages/${message_id}/claim`, body }),
  run: async ({ actor }, { message_id, ttl_seconds, claim_id, worker }) => serializeClaim(await changeClaim(actor, message_id, "claim", { ttlSeconds: ttl_seconds, claimId: claim_id, worker })),
});

export const releaseMessageTool = defineTool({
  name: "release_message",
  title: "Release a claimed message",
  description: "Give a message you claimed back, unhandled: another worker may claim it. Name your claim with claim_id (required: claim_id_required without it). Fails with claim_not_active if that claim is no longer live.",
  scope: "mail",
  input: { message_id: idArg("msg_..."), ...endClaimInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { ...WRITE, idempotentHint: true },
  write: ({ message_id, claim_id }) => ({ path: `/v1/messages/${message_id}/release`, body: { claim_id } }),
  run: async ({ actor }, { message_id, claim_id }) => serializeClaim(await changeClaim(actor, message_id, "release", { claimId: claim_id })),
});

export const completeMessageTool = defineTool({
  name: "complete_message",
  title: "Complete a claimed message",
  description: "Mark a message you claimed as handled: nobody can claim it again. Name your claim with claim_id (required: claim_id_required without it).",
  scope: "mail",
  input: { message_id: idArg("msg_..."), ...endClaimInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { ...WRITE, idempotentHint: true },
  write: ({ message_id, claim_id }) => ({ path: `/v1/messages/${message_id}/complete`, body: { claim_id } }),
  run: async ({ actor }, { message_id, claim_id }) => serializeClaim(await changeClaim(actor, message_id, "complete", { claimId: claim_id })),
});

export const COORDINATION_TOOLS = [
  acquireLeaseTool,
  renewLeaseTool,
  releaseLeaseTool,
  getLeaseTool,
  listLeasesTool,
  verifyLeaseTool,
  claimMessageTool,
  releaseMessageTool,
  completeMessageTool,
];
