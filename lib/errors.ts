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
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_in_progress: 409,
  idempotency_mismatch: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export type FieldError = { field: string; message: string };

export class AppError extends Error {
  override name = "AppError";
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { errors?: FieldError[]; [key: string]: unknown } = {},
  ) {
    super(message);
    this.status = ERROR_CODES[code];
  }
}

export const notFound = (what: string, id: string) => new AppError("not_found", `No ${what} with id ${id}.`);
