import { AppError } from "../errors";
import { authenticate, type AuthenticatedKey } from "./authenticate";
import { takeTokens } from "./rate-limit";
import { env } from "../config/env";
import { readTraceId } from "./request-ids";

/**
 * The door of every key-authenticated endpoint (/api/v1 and /api/mcp): the trace id, the bearer
 * key, and the key's rate limit, whose state goes into `headers` for the response.
 */
export async function admitRequest(req: Request, headers: Headers): Promise<{ key: AuthenticatedKey; traceId: string | undefined }> {
  const traceId = readTraceId(req.headers);
  const key = await authenticate(req.headers.get("authorization"));
  const e = env();
  // Per key, and per workspace beside it: many keys of one tenant do not multiply its share.
  const [limit, workspace] = await takeTokens([
    { bucket: `key:${key.id}`, rate: e.API_RATE_LIMIT_PER_SECOND, burst: e.API_RATE_LIMIT_BURST },
    { bucket: `ws:${key.workspaceId}`, rate: e.API_WORKSPACE_RATE_LIMIT_PER_SECOND, burst: e.API_WORKSPACE_RATE_LIMIT_BURST },
  ]);
  headers.set("ratelimit-limit", String(limit!.limit));
  headers.set("ratelimit-remaining", String(limit!.remaining));
  if (!limit!.allowed) {
    throw new AppError("rate_limited", `Too many requests for this API key. Retry in ${limit!.retryAfterSeconds} s.`, {}, { "retry-after": String(limit!.retryAfterSeconds) });
  }
  if (!workspace!.allowed) {
    throw new AppError("rate_limited", `Too many requests for this workspace (all its keys together). Retry in ${workspace!.retryAfterSeconds} s.`, { scope: "workspace" }, { "retry-after": String(workspace!.retryAfterSeconds) });
  }
  return { key, traceId };
}
