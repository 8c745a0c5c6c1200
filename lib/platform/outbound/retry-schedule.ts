/**
 * Waits after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. With the first
 * attempt that makes 8 attempts over about 28 hours.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Each wait varies by up to this fraction either way, so failing endpoints are not hit in lockstep. */
export const JITTER = 0.1;
/** A Retry-After longer than this is capped: the endpoint is still retried within a day. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** The wait after failed attempt number `attempt` (1-based), or null when attempts are used up. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/** A Retry-After header (seconds or an HTTP date) as a wait in ms, or null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(ms, 1000), MAX_RETRY_AFTER_MS);
}
