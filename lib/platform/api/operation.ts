import type { z } from "zod";
import type { ApiKeyScope } from "../../../db/schema";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * One API operation: the schemas its route validates with, and what the OpenAPI document
 * says of it. Routes are built from these (withApiKey), so the docs cannot drift.
 */
export type Operation<Body extends z.ZodType = z.ZodType, Query extends z.ZodType = z.ZodType> = {
  method: HttpMethod;
  /** OpenAPI path under /api, e.g. `/v1/agents/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  scope?: ApiKeyScope;
  body?: Body;
  query?: Query;
  /**
   * "statement": the operation's state change is one `effect` statement (db/effect.ts), which
   * stores an Idempotency-Key's record itself; otherwise the request runs in one transaction.
   */
  idempotency?: "statement";
  /**
   * "statement": a read whose handler reads through exactly one `effect` statement, so the door
   * (key, scopes, rate limits, revocation) rides in it once this instance knows the key: one
   * round trip per request (GET /v1/me).
   */
  door?: "statement";
  /**
   * Bytes this operation's body may have over API_MAX_BODY_BYTES (the mail routes that take
   * attachments as base64). Stated in the OpenAPI description of the operation.
   */
  extraBodyBytes?: number;
  /** Response schemas by status; errors are added from the problem schema. */
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
};

export function defineOperation<B extends z.ZodType = z.ZodNever, Q extends z.ZodType = z.ZodNever>(
  op: Operation<B, Q>,
): Operation<B, Q> {
  return op;
}
