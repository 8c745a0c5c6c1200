/**
 * The one error class of the product. `code` is stable and machine-readable; the HTTP
 * status is derived from it, so the same failure always has the same status.
 */
export const ERROR_CODES = {
  validation_failed: 400,
  malformed_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  hold_conflict: 409,
  hold_expired: 409,
  hold_preempted: 409,
  hold_not_active: 409,
  hold_awaiting_approval: 409,
  priority_above_ceiling: 403,
  lease_conflict: 409,
  lease_expired: 409,
  lease_not_active: 409,
  message_claimed: 409,
  message_completed: 409,
  claim_not_active: 409,
  claim_id_required: 409,
  domain_taken: 409,
  domain_not_verified: 409,
  domain_in_use: 409,
  idempotency_in_progress: 409,
  handoff_claimed: 409,
  handoff_not_pending: 409,
  handoff_claim_lost: 409,
  approval_not_approved: 409,
  approval_expired: 409,
  approval_consumed: 409,
  action_mismatch: 409,
  approval_insufficient: 409,
  approval_required: 403,
  idempotency_mismatch: 422,
  payload_too_large: 413,
  unprocessable_message: 422,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_pending_approvals: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A short, fixed title per code (RFC 9457 `title`); `detail` says what happened this time. */
export const ERROR_TITLES: Record<ErrorCode, string> = {
  validation_failed: "The request has invalid fields",
  malformed_json: "The request body is not valid JSON",
  invalid_request: "The request is not valid",
  unauthorized: "Authentication required",
  forbidden: "Not allowed",
  insufficient_scope: "The API key lacks a required scope",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  hold_conflict: "The time is taken",
  hold_expired: "The hold has expired",
  hold_preempted: "The hold was preempted by a higher-priority hold",
  hold_not_active: "The hold is no longer held",
  hold_awaiting_approval: "The hold waits for an approval's decision",
  priority_above_ceiling: "The priority is above the agent's ceiling",
  lease_conflict: "The resource is leased",
  lease_expired: "The lease has expired",
  lease_not_active: "The lease is no longer active",
  message_claimed: "Another worker is handling this message",
  message_completed: "The message has been handled",
  claim_not_active: "There is no live claim to end",
  claim_id_required: "Name the claim you are ending with claim_id",
  domain_taken: "The domain belongs to another workspace",
  domain_not_verified: "The domain is not verified",
  domain_in_use: "Inboxes still use the domain",
  idempotency_in_progress: "A request with this Idempotency-Key is still running",
  handoff_claimed: "Another worker holds a live claim on this handoff",
  handoff_not_pending: "The handoff is no longer waiting for a worker",
  handoff_claim_lost: "This claim on the handoff is no longer live",
  approval_not_approved: "The approval is not approved",
  approval_expired: "The approval has expired",
  approval_consumed: "The approval has already been spent",
  action_mismatch: "The action differs from the approved one",
  approval_insufficient: "The approval does not meet the rule that gates this action",
  approval_required: "This action needs a person's approval first",
  idempotency_mismatch: "This Idempotency-Key was used with a different request",
  payload_too_large: "The request body is too large",
  unprocessable_message: "The message cannot be processed",
  unsupported_media_type: "Unsupported content type",
  rate_limited: "Too many requests",
  too_many_pending_approvals: "Too many approvals are already waiting for a person",
  internal_error: "Internal error",
  service_unavailable: "Service unavailable",
};

export type FieldError = { field: string; message: string };

export class AppError extends Error {
  override name = "AppError";
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra problem members (`errors`, `conflicts`...), shown to the caller. */
    readonly extra: { errors?: FieldError[]; [key: string]: unknown } = {},
    /** Response headers that go with this error (`retry-after`, `www-authenticate`). */
    readonly headers: Record<string, string> = {},
  ) {
    // A 4xx is an answer, not a fault: it carries no stack trace, whose capture cost a refused
    // hold more than building its problem body (the hot calendar answers mostly 409s). A 5xx keeps one.
    const limit = Error.stackTraceLimit;
    if (ERROR_CODES[code] < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = ERROR_CODES[code];
  }
}

export const notFound = (what: string, id: string) => new AppError("not_found", `No ${what} with id ${id}.`);
