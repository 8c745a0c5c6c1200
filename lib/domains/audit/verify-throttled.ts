import { AppError } from "../../platform/errors";
import { env } from "../../platform/config/env";
import { takeToken } from "../../platform/api/rate-limit";
import { verifyChain, type ChainVerification } from "../../platform/audit/verify-chain";

const running = new Map<string, Promise<ChainVerification>>();

/**
 * Verifying recomputes a workspace's whole chain, so it is throttled per workspace (a token
 * bucket of AUDIT_VERIFY_PER_MINUTE, across instances) and concurrent requests in one process
 * share one run. Not cached: a verification after a tamper always sees it.
 */
export async function verifyChainThrottled(
  workspaceId: string,
  opts: { checkpoint?: string } = {},
): Promise<ChainVerification & { object: "audit_verification"; verified_at: string }> {
  const perMinute = env().AUDIT_VERIFY_PER_MINUTE;
  const token = await takeToken(`audit-verify:${workspaceId}`, { rate: perMinute / 60, burst: Math.max(1, Math.ceil(perMinute / 3)) });
  if (!token.allowed) {
    throw new AppError(
      "rate_limited",
      `The audit chain of this workspace may be verified ${perMinute} times a minute (AUDIT_VERIFY_PER_MINUTE). Retry in ${token.retryAfterSeconds} s.`,
      { scope: "audit_verify" },
      { "retry-after": String(token.retryAfterSeconds) },
    );
  }
  // Shared only between requests asking the same question (the same witness checkpoint, or none).
  const key = `${workspaceId}\0${opts.checkpoint ?? ""}`;
  let run = running.get(key);
  if (!run) {
    run = verifyChain(workspaceId, opts).finally(() => running.delete(key));
    running.set(key, run);
  }
  return { object: "audit_verification", ...(await run), verified_at: new Date().toISOString() };
}
