import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import {
  claimedHandoffSchema,
  claimHandoffInput,
  completeHandoffInput,
  createHandoffInput,
  extendHandoffInput,
  failHandoffInput,
  handoffEnvelopeSchema,
  handoffSchema,
  listHandoffsQuery,
} from "./schemas";

const tag = "Handoffs";
const workerOnly = "Only the recipient agent's keys (or a workspace-wide key) may do this; to the sender's key it is 403 forbidden.";
const claimCodes = "409 handoff_claim_lost when the claim lapsed, was retaken by another worker, or the handoff ended.";

export const createHandoffOp = defineOperation({
  method: "POST",
  path: "/v1/handoffs",
  operationId: "createHandoff",
  summary: "Hand work to another agent",
  description:
    "Send an Idempotency-Key: a retry with the same key returns the same handoff. The recipient learns of it by the handoff.received webhook or GET /v1/handoffs?status=pending. " +
    "An x-trace-id header puts it on that trace; otherwise it joins its parent's trace, or starts one named by its correlation id. " +
    "An agent-bound key may use only a trace (or correlation_id) its agent started, a new one, or one whose handoffs its agent sent or received: any other is not found (404).",
  tag,
  scope: "handoffs",
  body: createHandoffInput,
  responses: { 201: { description: "The handoff's envelope (the body is kept apart: GET the handoff for it)", schema: handoffEnvelopeSchema } },
});

export const listHandoffsOp = defineOperation({
  method: "GET",
  path: "/v1/handoffs",
  operationId: "listHandoffs",
  summary: "List handoff envelopes, newest first",
  description: "An agent-bound key sees the handoffs its agent sent or received. status=pending lists the work waiting for a worker.",
  tag,
  scope: "handoffs",
  query: listHandoffsQuery,
  responses: { 200: { description: "A page of envelopes", schema: listOf(handoffEnvelopeSchema) } },
});

export const getHandoffOp = defineOperation({
  method: "GET",
  path: "/v1/handoffs/{id}",
  operationId: "getHandoff",
  summary: "Retrieve a handoff with its body and result",
  tag,
  scope: "handoffs",
  responses: { 200: { description: "The handoff", schema: handoffSchema } },
});

export const claimHandoffOp = defineOperation({
  method: "POST",
  path: "/v1/handoffs/{id}/claim",
  operationId: "claimHandoff",
  summary: "Claim a pending handoff for one worker",
  description:
    `Of many workers claiming at once exactly one wins; the others get 409 handoff_claimed. A claim that lapsed is retaken with attempt + 1; past max_attempts the handoff is dead (409 handoff_not_pending). ${workerOnly}`,
  tag,
  scope: "handoffs",
  body: claimHandoffInput,
  responses: { 200: { description: "The claimed handoff with its body and claim_id", schema: claimedHandoffSchema } },
});

export const extendHandoffOp = defineOperation({
  method: "POST",
  path: "/v1/handoffs/{id}/extend",
  operationId: "extendHandoffClaim",
  summary: "Heartbeat: keep a live claim for ttl_seconds from now",
  description: `${claimCodes} ${workerOnly}`,
  tag,
  scope: "handoffs",
  body: extendHandoffInput,
  responses: { 200: { description: "The handoff's envelope", schema: handoffEnvelopeSchema } },
});

export const completeHandoffOp = defineOperation({
  method: "POST",
  path: "/v1/handoffs/{id}/complete",
  operationId: "completeHandoff",
  summary: "Complete a claimed handoff with a result for the sender",
  description: `handoff.completed goes to the sender with the result. Completing again with the same claim_id is a no-op. ${claimCodes} ${workerOnly}`,
  tag,
  scope: "handoffs",
  body: completeHandoffInput,
  responses: { 200: { description: "The completed handoff", schema: handoffSchema } },
});

export const failHandoffOp = defineOperation({
  method: "POST",
  path: "/v1/handoffs/{id}/fail",
  operationId: "failHandoff",
  summary: "Report that a claimed handoff failed",
  description: `retry: true puts it back to pending while attempts remain; otherwise it is dead (handoff.dead to both agents). ${claimCodes} ${workerOnly}`,
  tag,
  scope: "handoffs",
  body: failHandoffInput,
  responses: { 200: { description: "The handoff's envelope", schema: handoffEnvelopeSchema } },
});
