import { ZodError } from "zod";
import { AppError, type ErrorCode } from "../../platform/errors";
import { isUniqueViolation } from "../../../db/errors";

/** The scimType values of RFC 7644 §3.12 this server answers with. */
export type ScimType = "uniqueness" | "invalidFilter" | "invalidValue" | "invalidPath" | "invalidSyntax" | "mutability" | "tooMany" | "noTarget";

export const SCIM_CONTENT_TYPE = "application/scim+json";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

const CODE_BY_STATUS: Record<number, ErrorCode> = { 400: "validation_failed", 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 413: "payload_too_large" };

/** An AppError that carries its SCIM scimType (the product's one error class, so logs and tests read it alike). */
export function scimError(status: 400 | 401 | 403 | 404 | 409 | 413, scimType: ScimType | null, detail: string): AppError {
  return new AppError(CODE_BY_STATUS[status]!, detail, scimType ? { scimType } : {});
}

export type ScimErrorBody = { schemas: [typeof ERROR_SCHEMA]; status: string; scimType?: ScimType; detail: string };

/** Any error as a SCIM error document (RFC 7644 §3.12): status as a string, scimType where the RFC has one. Unknown errors are logged and masked. */
export function toScimError(err: unknown, requestId: string): { status: number; body: ScimErrorBody; headers: Record<string, string> } {
  const body = (status: number, detail: string, scimType?: ScimType) => ({ schemas: [ERROR_SCHEMA] as [typeof ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail });
  if (err instanceof AppError) {
    const scimType = (err.extra.scimType as ScimType | undefined) ?? (err.code === "malformed_json" ? "invalidSyntax" : err.status === 409 ? "uniqueness" : err.code === "validation_failed" ? "invalidValue" : undefined);
    return { status: err.status, body: body(err.status, err.message, scimType), headers: err.headers };
  }
  if (err instanceof ZodError) {
    const detail = err.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
    return { status: 400, body: body(400, `The request is not a valid SCIM resource: ${detail}.`, "invalidValue"), headers: {} };
  }
  if (isUniqueViolation(err)) {
    return { status: 409, body: body(409, "Another resource of this workspace already has this userName, email or displayName.", "uniqueness"), headers: {} };
  }
  console.error(`[scim] ${requestId} unhandled error:`, err);
  return { status: 500, body: body(500, `Something went wrong on our side (request ${requestId}); retry later.`), headers: {} };
}
