import { retryDelayMs } from "../../platform/outbound/retry-schedule";
import { TransportError } from "./resend-transport";

/** A claimed message is not picked again for this long, unless its attempt finishes first. */
export const DELIVERY_LEASE_MS = 2 * 60 * 1000;

/**
 * What follows a failed attempt (the `attempts`-th): retry after `waitMs` (5 s, 5 min, 30 min
 * ... 8 attempts, as webhooks), or give up (`waitMs: null`) when the provider refused the
 * message itself (a 4xx) or the attempts ran out.
 */
export function afterFailure(err: unknown, attempts: number): { waitMs: number | null; error: string } {
  const error = err instanceof Error ? err.message : String(err);
  return { error, waitMs: err instanceof TransportError && err.permanent ? null : retryDelayMs(attempts) };
}
