import { AppError } from "../errors";
import { newId } from "../ids";

const TRACE_ID = /^[A-Za-z0-9._:\/-]{1,128}$/;

/** Every response carries one of these. */
export const newRequestId = () => newId("request");

/** A caller's `x-trace-id`, kept on the audit entries and webhooks the request causes. */
export function readTraceId(headers: Headers): string | undefined {
  const value = headers.get("x-trace-id")?.trim();
  if (!value) return undefined;
  if (!TRACE_ID.test(value)) {
    throw new AppError("invalid_request", "x-trace-id must be 1 to 128 characters of letters, digits and . _ : / -.");
  }
  return value;
}
