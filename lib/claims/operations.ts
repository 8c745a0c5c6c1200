import { defineOperation } from "../api/operation";
import { claimMessageInput, claimSchema } from "./schemas";

const tag = "Mail";
const scope = "mail" as const;

export const claimMessageOp = defineOperation({
  method: "POST",
  path: "/v1/messages/{id}/claim",
  operationId: "claimMessage",
  summary: "Claim a received message: exclusive handling for ttl_seconds",
  description:
    "Of many workers racing, exactly one wins (the worker is the API key). Others get 409 message_claimed while the claim is live, 409 message_completed once it is completed. " +
    "Claiming again with the same key renews it. A claim past its TTL is dead: anyone may claim the message again. List free messages with GET /v1/inboxes/{id}/messages?claimable=true.",
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
  description: "Only the claiming key. 409 claim_not_active when it holds no live claim.",
  tag,
  scope,
  responses: { 200: { description: "The released claim", schema: claimSchema } },
});

export const completeClaimOp = defineOperation({
  method: "POST",
  path: "/v1/messages/{id}/complete",
  operationId: "completeMessageClaim",
  summary: "Mark a claimed message handled: nobody can claim it again",
  description: "Only the claiming key, while its claim is live. Completing twice answers the completed claim again.",
  tag,
  scope,
  responses: { 200: { description: "The completed claim", schema: claimSchema } },
});
