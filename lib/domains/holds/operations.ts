import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { extendHoldInput, holdSchema, listHoldsQuery, placeHoldInput, placeMultiHoldInput } from "./schemas";

const tag = "Holds";
const liveCodes = "409 hold_expired if its TTL passed, hold_preempted if a higher priority took the time, hold_not_active if already released.";

export const placeHoldOp = defineOperation({
  method: "POST",
  path: "/v1/calendars/{id}/holds",
  operationId: "placeHold",
  summary: "Place a tentative hold on a calendar",
  description:
    "Conflicts with a committed event, busy time imported from a linked Google or Outlook calendar (type external_busy, source google or microsoft), or a live hold of equal or higher priority: 409 hold_conflict listing them. " +
    "Live holds of strictly lower priority are preempted. Intervals are half-open [start, end). " +
    "While the agent is tainted (it read untrusted mail within the workspace's taint window, whatever headers the request carries; a trace that starts at untrusted mail adds taint, never removes it), a workspace policy (action class hold.place, untrusted_trace, min_priority) answers 403 approval_required naming the approval it opened; once approved, the same request with the AgentDraft-Approval-Id header spends it on exactly that hold, in the transaction that makes it.",
  idempotency: "statement",
  tag,
  scope: "calendar",
  body: placeHoldInput,
  responses: { 201: { description: "The hold", schema: holdSchema } },
});

export const placeMultiHoldOp = defineOperation({
  method: "POST",
  path: "/v1/holds",
  operationId: "placeMultiCalendarHold",
  summary: "Hold several calendars at once, all or nothing",
  idempotency: "statement",
  tag,
  scope: "calendar",
  body: placeMultiHoldInput,
  responses: { 201: { description: "The hold", schema: holdSchema } },
});

export const listHoldsOp = defineOperation({
  method: "GET",
  path: "/v1/holds",
  operationId: "listHolds",
  summary: "List holds, newest first",
  description: "status=held lists holds live now; status=expired includes holds past their TTL the expiry job has not marked yet.",
  tag,
  scope: "calendar",
  query: listHoldsQuery,
  responses: { 200: { description: "A page of holds", schema: listOf(holdSchema) } },
});

export const getHoldOp = defineOperation({
  method: "GET",
  path: "/v1/holds/{id}",
  operationId: "getHold",
  summary: "Retrieve a hold",
  tag,
  scope: "calendar",
  responses: { 200: { description: "The hold", schema: holdSchema } },
});

export const extendHoldOp = defineOperation({
  method: "POST",
  path: "/v1/holds/{id}/extend",
  operationId: "extendHold",
  summary: "Heartbeat: keep a live hold for another TTL from now",
  description: liveCodes,
  idempotency: "statement",
  tag,
  scope: "calendar",
  body: extendHoldInput,
  responses: { 200: { description: "The hold", schema: holdSchema } },
});

export const commitHoldOp = defineOperation({
  method: "POST",
  path: "/v1/holds/{id}/commit",
  operationId: "commitHold",
  summary: "Commit a live hold: it becomes one event per calendar, atomically",
  description: liveCodes,
  idempotency: "statement",
  tag,
  scope: "calendar",
  responses: { 200: { description: "The committed hold, with event_ids", schema: holdSchema } },
});

export const releaseHoldOp = defineOperation({
  method: "POST",
  path: "/v1/holds/{id}/release",
  operationId: "releaseHold",
  summary: "Release a live hold, giving the time back",
  description: liveCodes,
  idempotency: "statement",
  tag,
  scope: "calendar",
  responses: { 200: { description: "The released hold", schema: holdSchema } },
});
