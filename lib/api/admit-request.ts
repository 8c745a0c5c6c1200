import { AppError } from "../errors";
import { authenticate, type AuthenticatedKey } from "./authenticate";
import { takeToken } from "./rate-limit";
import { readTraceId } from "./request-ids";

/**
 * The door of every key-authenticated endpoint (/api/v1 and /api/mcp): the trace id, the bearer
 * key, and the key's rate limit, whose state goes into `headers` for the response.
 */
export async function admitRequest(req: Request, headers: Headers): Promise<{ key: AuthenticatedKey; traceId: string | undefined }> {
  const traceId = readTraceId(req.headers);
  const key = await authenticate(req.headers.get("authorization"));
  const limit = await takeToken(`key:${key.id}`);
  headers.set("ratelimit-limit", String(limit.limit));
  headers.set("ratelimit-remaining", String(limit.remaining));
  if (!limit.allowed) {
    throw new AppError("rate_limited", `Too many requests for this API key. Retry in ${limit.retryAfterSeconds} s.`, {}, { "retry-after": String(limit.retryAfterSeconds) });
  }
  return { key, traceId };
}
