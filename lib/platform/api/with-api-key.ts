import type { z } from "zod";
import type { Actor } from "../actor";
import { AppError } from "../errors";
import { env } from "../config/env";
import { assertReadyToServe } from "../config/startup-gate";
import { requireScope, type AuthenticatedKey } from "./authenticate";
import { admitRequest, deferDoor, type Admitted } from "./admit-request";
import { DoorRefusedError, withDeferredDoor } from "../../../db/effect";
import { parseJsonBody, readBody } from "./read-body";
import { isIdempotencyKey, runIdempotent, requestFingerprint, validateIdempotencyKey } from "./idempotency";
import { fieldErrors, problemResponse } from "./problem";
import { newRequestId } from "./request-ids";
import { queryObject } from "./pagination";
import { assertIdParams, assertSafeJson, assertSafeQuery } from "./input-guards";
import type { Operation } from "./operation";
import { armSweepForWrite } from "../jobs/schedule";
import { unknownFields } from "./unknown-fields";

export type ApiContext<Body = unknown, Query = unknown> = {
  req: Request;
  url: URL;
  key: AuthenticatedKey;
  /** Who acts, for audit entries: this key (and its agent), with the request and trace ids. */
  actor: Actor & { type: "key" };
  params: Record<string, string>;
  requestId: string;
  /** The body, validated by the operation's schema; malformed JSON is a 400 before the handler runs. */
  body: Body;
  /** The query string, validated by the operation's schema. */
  query: Query;
};

type RouteContext = { params: Promise<Record<string, string | string[]>> };
type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

/**
 * The one wrapper every /api/v1 route uses: request id, bearer-key authentication, scope,
 * per-key rate limit, body limit and JSON parsing, Idempotency-Key on POST, and RFC 9457
 * problems for every failure.
 */
export function withApiKey<B extends z.ZodType, Q extends z.ZodType>(
  op: Operation<B, Q>,
  handler: (ctx: ApiContext<Infer<B>, Infer<Q>>) => Promise<Response>,
) {
  return async (req: Request, route?: RouteContext): Promise<Response> => {
    const requestId = newRequestId();
    const headers = new Headers({ "x-request-id": requestId });
    let deferred: ReturnType<typeof deferDoor> = null;
    try {
      await assertReadyToServe();
      const idempotencyKey = req.method === "POST" ? req.headers.get("idempotency-key") : null;
      const wellFormedKey = idempotencyKey !== null && isIdempotencyKey(idempotencyKey) ? idempotencyKey : null;
      // A one-statement change, untraced, takes the door (and the lookup of its Idempotency-Key's
      // stored response) into its statement; so does a one-statement read.
      const oneStatement = op.idempotency === "statement" ? idempotencyKey === wellFormedKey : op.door === "statement" && idempotencyKey === null;
      deferred = oneStatement && !req.headers.has("x-trace-id") ? deferDoor(req, wellFormedKey) : null;
      const { key, traceId, stored } = deferred ?? (await admitRequest(req, headers, wellFormedKey));
      requireScope(key, op.scope);
      if (req.method !== "GET" && req.method !== "HEAD") armSweepForWrite();

      const url = new URL(req.url);
      const params = Object.fromEntries(
        Object.entries((await route?.params) ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : v]),
      );
      // Junk never reaches a schema or a query: ids by shape (404), then text and depth (400).
      assertIdParams(params);
      const rawQuery = queryObject(url);
      assertSafeQuery(rawQuery);
      const raw = req.method === "GET" || req.method === "HEAD" ? "" : await readBody(req, env().API_MAX_BODY_BYTES + (op.extraBodyBytes ?? 0));
      const json = parseJsonBody(raw, req.headers.get("content-type"));
      assertSafeJson(json);
      // A field or query parameter the operation does not take is refused, by name, never dropped.
      assertKnownFields(op, rawQuery, json);
      const body = (op.body ? op.body.parse(json) : undefined) as Infer<B>;
      const query = (op.query ? op.query.parse(rawQuery) : undefined) as Infer<Q>;
      const ctx: ApiContext<Infer<B>, Infer<Q>> = {
        req,
        url,
        key,
        actor: { type: "key", workspaceId: key.workspaceId, keyId: key.id, agentId: key.agentId, traceId, requestId },
        params,
        requestId,
        body,
        query,
      };

      let res: Response;
      if (idempotencyKey !== null) {
        const door = deferred;
        const run = () =>
          runIdempotent({
            apiKeyId: key.id,
            key: validateIdempotencyKey(idempotencyKey),
            fingerprint: requestFingerprint(req.method, url.pathname + url.search, raw),
            execute: () => handler(ctx),
            render: (err) => problemResponse(err, requestId),
            stored,
            statement: op.idempotency === "statement",
            admit: door ? async () => (await passDoor(door, headers)).stored : undefined,
          });
        res = door ? await withDeferredDoor(door.door, run) : await run();
        if (door) {
          deferred = null;
          await passDoor(door, headers);
        }
      } else if (deferred) {
        const door = deferred;
        res = await withDeferredDoor(door.door, () => handler(ctx));
        deferred = null; // passed below: a refusal there is the answer, not a second door
        await passDoor(door, headers);
      } else {
        res = await handler(ctx);
      }
      return withHeaders(res, headers);
    } catch (err) {
      if (!deferred) return problemResponse(err, requestId, headers);
      // The door's answer comes first, as if it had run before anything else: 401 or 429 over the request's own error.
      try {
        await passDoor(deferred, headers);
      } catch (refused) {
        return problemResponse(refused, requestId, headers);
      }
      return problemResponse(err instanceof DoorRefusedError ? new Error("the door refused a request it then admitted") : err, requestId, headers);
    }
  };
}

/**
 * A deferred door's verdict: what the request's statement answered for it, or, when no effect
 * statement ran (the request failed before one), the door on its own. Throws its 401 or 429.
 */
async function passDoor(deferred: NonNullable<ReturnType<typeof deferDoor>>, headers: Headers): Promise<Admitted> {
  if (deferred.door.answer === undefined) deferred.door.answer = await deferred.admitAlone();
  return deferred.settle(headers);
}

/**
 * Throws 400 `validation_failed` naming every query parameter and body field (nested ones
 * included) the operation does not declare, with the schema's own complaints about the rest.
 */
function assertKnownFields(op: Operation, query: Record<string, string | string[]>, json: unknown): void {
  const unknown = [...unknownFields(op.query, query, "query parameter"), ...unknownFields(op.body, json)];
  if (unknown.length === 0) return;
  const rest = [op.query?.safeParse(query), op.body?.safeParse(json)].flatMap((r) => (r && !r.success ? fieldErrors(r.error) : []));
  const named = new Set(unknown.map((e) => e.field));
  const errors = [...unknown, ...rest.filter((e) => !named.has(e.field))];
  throw new AppError("validation_failed", `Unknown ${unknown.length === 1 ? "field" : "fields"}: ${unknown.map((e) => e.field).join(", ")}. ${op.method} /api${op.path} does not take ${unknown.length === 1 ? "it" : "them"}.`, { errors });
}

/** The door's headers on the handler's response: set in place (a second Response would re-wrap its body's stream on every request). */
function withHeaders(res: Response, headers: Headers): Response {
  try {
    headers.forEach((v, k) => res.headers.set(k, v));
    return res;
  } catch {
    // Immutable headers (a response passed through from fetch): copy into a new one.
    const out = new Response(res.body, res);
    headers.forEach((v, k) => out.headers.set(k, v));
    return out;
  }
}

/** An agent-bound key acts only as its agent: any other agent's id is not found (SPEC §1). */
export function assertActsAs(key: AuthenticatedKey, agentId: string, what = "agent"): void {
  if (key.agentId && key.agentId !== agentId) throw new AppError("not_found", `No ${what} with id ${agentId}.`);
}
