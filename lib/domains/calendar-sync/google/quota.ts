import { setTimeout as sleep } from "node:timers/promises";
import { takeToken } from "../../../platform/api/rate-limit";
import { env } from "../../../platform/config/env";

/** Google's answer to a failed call, as far as retrying it is concerned. */
export type GoogleFailure = { status: number | null; reason: string | null; message: string; retryAfterMs: number | null };

const QUOTA_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "dailyLimitExceeded", "usageLimits"]);

/** Reads a googleapis (gaxios) error: HTTP status, Google's `reason`, message, Retry-After. */
export function googleFailure(err: unknown): GoogleFailure {
  const e = err as { status?: number; code?: string | number; message?: string; response?: { status?: number; data?: unknown; headers?: unknown } };
  const status = e?.response?.status ?? (typeof e?.status === "number" ? e.status : null);
  const data = e?.response?.data as { error?: { errors?: { reason?: string; domain?: string }[]; message?: string } | string; error_description?: string } | undefined;
  const first = typeof data?.error === "object" ? data.error.errors?.[0] : undefined;
  const reason = first?.reason ?? (typeof data?.error === "string" ? data.error : null);
  const domain = first?.domain ?? null;
  const message =
    (typeof data?.error === "object" ? data.error.message : data?.error_description) ?? e?.message ?? String(err);
  const headers = e?.response?.headers as { get?: (n: string) => string | null } | Record<string, string> | undefined;
  const rawRetry = typeof (headers as { get?: unknown })?.get === "function" ? (headers as { get: (n: string) => string | null }).get("retry-after") : (headers as Record<string, string> | undefined)?.["retry-after"];
  const seconds = rawRetry ? Number(rawRetry) : NaN;
  return {
    status,
    reason: domain === "usageLimits" && reason && !QUOTA_REASONS.has(reason) ? "usageLimits" : reason,
    message: status ? `Google answered ${status}${reason ? ` ${reason}` : ""}: ${message}` : `Google could not be reached: ${message}`,
    retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : null,
  };
}

/** 429, or 403 for a usage limit (rateLimitExceeded, userRateLimitExceeded, quota...): slow down and retry. */
export function isQuotaFailure(f: GoogleFailure): boolean {
  return f.status === 429 || (f.status === 403 && f.reason !== null && QUOTA_REASONS.has(f.reason));
}

/** Exponential backoff with jitter: base·2^n, between half and all of it, capped at a minute. */
export function backoffDelayMs(attempt: number, baseMs = env().GOOGLE_BACKOFF_BASE_MS, random = Math.random): number {
  const ceiling = Math.min(baseMs * 2 ** attempt, 60_000);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export const QUOTA_ATTEMPTS = 5;

/**
 * Every call to Google for one connection (one Google user) goes through here: it waits for a
 * token from that connection's bucket (kept in Postgres, so the rate holds across instances),
 * and on a quota answer (403 usageLimits / 429) backs off exponentially with jitter and tries
 * again, up to QUOTA_ATTEMPTS times. Other failures are thrown at once.
 */
export async function callGoogle<T>(connectionId: string, call: () => Promise<T>, onBackoff?: (f: GoogleFailure, delayMs: number) => void): Promise<T> {
  const rate = env().GOOGLE_RATE_LIMIT_PER_SECOND;
  for (let attempt = 0; ; attempt++) {
    for (;;) {
      const t = await takeToken(`google:${connectionId}`, { rate, burst: Math.max(1, Math.ceil(rate * 2)) });
      if (t.allowed) break;
      await sleep(t.retryAfterMs);
    }
    try {
      return await call();
    } catch (err) {
      const f = googleFailure(err);
      if (!isQuotaFailure(f) || attempt + 1 >= QUOTA_ATTEMPTS) throw err;
      const delay = Math.max(backoffDelayMs(attempt), Math.min(f.retryAfterMs ?? 0, 60_000));
      onBackoff?.(f, delay);
      await sleep(delay);
    }
  }
}
