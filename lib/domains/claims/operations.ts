import { defineOperation } from "../../platform/api/operation";
import { claimMessageInput, claimSchema, endClaimInput } from "./schemas";

const tag = "Mail";
const scope = "mail" as const;

export const claimMessageOp = defineOperation({
  method: "POST",
  path: "/v1/messages/{id}/claim",
  operationId: "claimMessage",
  summary: "Claim a received message: exclusive handling for ttl_seconds",
  description:
    "Of many workers racing, exactly one wins. The worker is its claim, not its key: workers sharing an agent's key are told apart by the claim's `id`. Others (including another worker with the same key) get 409 message_claimed while the claim is live, 409 message_completed once it is completed. " +
    "To renew, claim again with `claim_id` set to your live claim's id (a claim_id that names no live claim is 409 claim_not_active: it lapsed). Since #30 a second claim from the same key without claim_id no longer renews. " +
    "A claim past its TTL is dead: anyone may claim the message again. List free messages with GET /v1/inboxes/{id}/messages?claimable=true.",
  tag,
  scope,
  body: claimMessageInput,
  responses: { 200: { description: "The claim", schema: claimSchema } },
});

export const releaseClaimOp = defineOperation({
  method: "POST",
  path: "/v1/messages/{id}/release",
  operationId: "releaseMessageClaim",
  summary: "Give a claimed message back, unhandled",
  description: "Only the claiming worker, naming its claim with `claim_id` (required: without it, 409 claim_id_required, since workers sharing a key are told apart only by it). 409 message_claimed while another worker's claim is live, claim_not_active when the claim named is not live.",
  tag,
  scope,
  body: endClaimInput,
  responses: { 200: { description: "The released claim", schema: claimSchema } },
});

export const completeClaimOp = defineOperation({
  method: "POST",
  path: "/v1/messages/{id}/complete",
  operationId: "completeMessageClaim",
  summary: "Mark a claimed message handled: nobody can claim it again",
  description: "Only the claiming worker, while its claim is live, naming it with `claim_id` (required: without it, 409 claim_id_required, since workers sharing a key are told apart only by it). Completing twice with the same claim_id answers the completed claim again.",
  tag,
  scope,
  body: endClaimInput,
  responses: { 200: { description: "The completed claim", schema: claimSchema } },
});
