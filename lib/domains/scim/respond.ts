import { assertReadyToServe } from "../../platform/config/startup-gate";
import { readBody } from "../../platform/api/read-body";
import { newRequestId } from "../../platform/api/request-ids";
import { takeToken } from "../../platform/api/rate-limit";
import { env } from "../../platform/config/env";
import { AppError } from "../../platform/errors";
import { scimError, SCIM_CONTENT_TYPE, toScimError } from "./errors";
import { scimBase } from "./serialize";
import { authenticateScimToken, type ScimActor } from "./tokens";

/** A SCIM request body's limit: Entra ID's group PATCHes carry long member lists. */
export const MAX_SCIM_BODY_BYTES = 1_000_000;

type Handle = (ctx: { req: Request; actor: ScimActor; base: string; body: () => Promise<unknown>; id: string }) => Promise<{ status: number; body?: unknown }>;

/**
 * Each SCIM token has its own token bucket (SCIM_RATE_LIMIT_*), so one identity provider's full
 * sync cannot crowd out the workspace's agents, nor another workspace's provider.
 */
async function admitScimToken(tokenId: string): Promise<void> {
  const e = env();
  const limit = await takeToken(`scim:${tokenId}`, { rate: e.SCIM_RATE_LIMIT_PER_SECOND, burst: e.SCIM_RATE_LIMIT_BURST });
  if (!limit.allowed) {
    throw new AppError("rate_limited", `Too many SCIM requests for this token: retry in ${limit.retryAfterSeconds} s.`, {}, { "retry-after": String(limit.retryAfterSeconds) });
  }
}

/**
 * The door of /scim/v2: the start-up gate, the workspace's SCIM token and its rate limit, then the handler; every
 * answer is application/scim+json, every refusal a SCIM error document (RFC 7644 §3.12).
 */
export function scimRoute(handle: Handle) {
  return async (req: Request, route?: { params: Promise<Record<string, string | string[]>> }): Promise<Response> => {
    const requestId = newRequestId();
    const headers: Record<string, string> = { "content-type": SCIM_CONTENT_TYPE, "x-request-id": requestId };
    try {
      await assertReadyToServe();
      const actor = { ...(await authenticateScimToken(req.headers.get("authorization"))), requestId };
      await admitScimToken(actor.tokenId);
      const raw = (await route?.params)?.id ?? "";
      const id = Array.isArray(raw) ? raw.join("/") : raw;
      if (id.length > 100) throw scimError(404, null, "No such resource.");
      const body = async () => {
        const text = await readBody(req, MAX_SCIM_BODY_BYTES);
        const type = req.headers.get("content-type");
        if (type && !/^application\/(scim\+)?json\b/i.test(type)) throw scimError(400, "invalidSyntax", `Send application/scim+json (got ${type}).`);
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw scimError(400, "invalidSyntax", "The request body is not valid JSON.");
        }
      };
      const out = await handle({ req, actor, base: scimBase(req), body, id });
      if (out.body === undefined) return new Response(null, { status: out.status, headers: { "x-request-id": requestId } });
      return new Response(JSON.stringify(out.body), { status: out.status, headers });
    } catch (err) {
      const { status, body, headers: extra } = toScimError(err, requestId);
      const auth: Record<string, string> = status === 401 ? { "www-authenticate": 'Bearer realm="scim"' } : {};
      return new Response(JSON.stringify(body), { status, headers: { ...headers, ...extra, ...auth } });
    }
  };
}
