import type { ErrorCode } from "../errors";

/** What each problem `code` means for the caller and what to do about it (shown at /docs/errors). */
export const ERROR_GUIDE: Record<ErrorCode, string> = {
  validation_failed: "A field is missing or wrong. `errors[]` names each bad field and why; fix them and send again.",
  malformed_json: "The body is not valid JSON. Send `content-type: application/json` and a JSON body.",
  invalid_request: "The request is not usable as sent (for example a bad Idempotency-Key or x-trace-id header). `detail` says which.",
  unauthorized: "No API key, an unknown one, or a revoked one. Send `Authorization: Bearer ad_live_...`.",
  forbidden: "The key may not do this (for example an agent-bound key widening a webhook filter).",
  insufficient_scope: "The key lacks the scope the operation needs (`required_scope`). Create a key with that scope.",
  not_found: "No such id for this key: it does not exist, belongs to another workspace, or to another agent.",
  method_not_allowed: "This path does not take that HTTP method.",
  conflict: "The resource is not in a state that allows this (for example an approval already decided).",
  hold_conflict: "The time is taken: `conflicts[]` lists the committed events and equal-or-higher-priority holds in the way. Pick other time or a higher priority.",
  hold_expired: "The hold's TTL passed, so its time is free again. Place a new hold.",
  hold_preempted: "A higher-priority hold took the time (`preempted_by`). Re-plan, or place a new hold elsewhere.",
  hold_not_active: "The hold was already committed or released.",
  handoff_claimed: "Another worker of the recipient claimed the handoff first and its claim is live. Take the next pending handoff instead.",
  handoff_not_pending: "The handoff is completed, dead or expired (`handoff.status`), or used up its attempts. Nothing to claim.",
  handoff_claim_lost: "Your claim lapsed (its TTL passed without `/extend`) or was retaken by another worker: stop, and do not report a result for this claim.",
  idempotency_in_progress: "A request with this Idempotency-Key is still running. Retry after `retry-after` seconds.",
  idempotency_mismatch: "This Idempotency-Key was used with a different request. Use a new key for a new request.",
  payload_too_large: "The body is over the size limit (API_MAX_BODY_BYTES for the API, MAIL_MAX_BYTES for mail).",
  unprocessable_message: "The mail cannot be processed (for example no recipient matches an inbox).",
  unsupported_media_type: "The content type is not accepted; the API takes `application/json`.",
  rate_limited: "Too many requests for this key. Wait `retry-after` seconds; `ratelimit-remaining` shows the budget.",
  internal_error: "Something failed on the server. Nothing was half-done; retry, and quote `request_id` if it persists.",
  service_unavailable:
    "The feature is not configured on this server (for example inbound mail without INBOUND_SECRET), or the deployment cannot serve yet: `reason` is `misconfigured` (`detail` names the setting to fix) or `database_unavailable` (the database is waking up: retry after `retry-after` seconds).",
};
