import { ZodError } from "zod";
import { AppError, ERROR_TITLES, type ErrorCode, type FieldError } from "../errors";

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  [key: string]: unknown;
};

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** zod issues as `{field, message}`, one per bad field, with paths like `calendar_ids.2`. */
export function fieldErrors(err: ZodError): FieldError[] {
  return err.issues.map((i) => ({ field: i.path.map(String).join(".") || "(body)", message: i.message }));
}

/**
 * The one place any error becomes an RFC 9457 problem. Unknown errors are logged with the
 * request id and masked: the caller gets the id to quote, never a stack trace.
 */
export function toProblem(err: unknown, requestId: string): ProblemBody {
  let appError: AppError;
  if (err instanceof AppError) appError = err;
  else if (err instanceof ZodError) {
    const errors = fieldErrors(err);
    appError = new AppError("validation_failed", `${errors.length} field${errors.length === 1 ? " is" : "s are"} invalid: ${errors.map((e) => e.field).join(", ")}.`, { errors });
  } else {
    console.error(`[api] ${requestId} unhandled error:`, err);
    appError = new AppError("internal_error", `Something went wrong on our side. Quote request ${requestId} if you report it.`);
  }
  const { errors, ...extra } = appError.extra;
  // Extra members first: they can never override the standard ones.
  return {
    ...extra,
    type: `/docs/errors#${appError.code}`,
    title: ERROR_TITLES[appError.code],
    status: appError.status,
    detail: appError.message,
    code: appError.code,
    request_id: requestId,
    ...(errors ? { errors } : {}),
  };
}

export function problemResponse(err: unknown, requestId: string, headers: HeadersInit = {}): Response {
  const body = toProblem(err, requestId);
  const h = new Headers(headers);
  h.set("content-type", PROBLEM_CONTENT_TYPE);
  if (err instanceof AppError) {
    for (const [k, v] of Object.entries(err.headers)) h.set(k, v);
  }
  return new Response(JSON.stringify(body), { status: body.status, headers: h });
}
