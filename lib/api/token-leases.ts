/**
 * Tokens this instance took from a shared rate-limit bucket in one go (a lease, granted by
 * agentdraft_lease_tokens) and spends locally, so a busy key's requests do not all write its
 * bucket's row. A lease lives one second; what is left of it then is dropped (those tokens
 * are not spent by anyone: a limit can be under-used by a lease's worth, never exceeded).
 */
type Lease = { left: number; until: number; bucketLeft: number };

const LEASE_MS = 1_000;
/** Bounds the memory a flood of distinct keys can take; the oldest lease goes first. */
const MAX_LEASES = 10_000;
const leases = new Map<string, Lease>();

/** Spends one leased token of `bucket`, if this instance holds one: the requests left to it, else null. */
export function spendLeased(bucket: string, now = Date.now()): { remaining: number } | null {
  const lease = leases.get(bucket);
  if (!lease) return null;
  if (lease.until <= now || lease.left < 1) {
    leases.delete(bucket);
    return null;
  }
  lease.left -= 1;
  return { remaining: Math.floor(lease.bucketLeft + lease.left) };
}

/** Keeps what a grant of `granted` tokens leaves after the request that took it spends one. */
export function keepLease(bucket: string, granted: number, bucketLeft: number, now = Date.now()): void {
  if (granted <= 1) return;
  const lease = leases.get(bucket);
  if (lease && lease.until > now) {
    lease.left += granted - 1;
    lease.bucketLeft = bucketLeft;
    return;
  }
  if (!lease && leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!);
  leases.set(bucket, { left: granted - 1, until: now + LEASE_MS, bucketLeft });
}

/** Drops the leases of a bucket (its key turned out unknown or revoked). */
export function dropLease(bucket: string): void {
  leases.delete(bucket);
}
