/**
 * Tokens this instance took from a shared rate-limit bucket in one go (a lease, granted by
 * agentdraft_lease_tokens) and spends locally, so a busy key's requests do not all write its
 * bucket's row. A lease lives one second from its last renewal; what is left of it then is
 * dropped (those tokens are not spent by anyone: a limit can be under-used by a lease's worth,
 * never exceeded, since every token spent was taken from the bucket).
 */
type Lease = { left: number; until: number; bucketLeft: number; size: number; renewingSince?: number };

const LEASE_MS = 1_000;
/** Bounds the memory a flood of distinct keys can take; the oldest lease goes first. */
const MAX_LEASES = 10_000;
const leases = new Map<string, Lease>();

/**
 * Spends one leased token of `bucket`, if this instance holds one: the requests left to it, else
 * null (the caller takes its token from the database, and a lease with it). A lease in its last
 * third (of its time or its tokens) is renewed ahead by one request at a time, while the others
 * go on spending it: a busy key's bucket sees one write per lease, never a queue of them.
 */
export function spendLeased(bucket: string, now = Date.now()): { remaining: number } | null {
  const lease = leases.get(bucket);
  if (!lease) return null;
  if (lease.until <= now || lease.left < 1) {
    leases.delete(bucket);
    return null;
  }
  const renewing = lease.renewingSince !== undefined && now - lease.renewingSince < LEASE_MS;
  if (!renewing && (lease.until - now < LEASE_MS / 3 || lease.left < lease.size / 3)) {
    lease.renewingSince = now;
    return null;
  }
  lease.left -= 1;
  return { remaining: Math.floor(lease.bucketLeft + lease.left) };
}

/** Keeps what a grant of `granted` tokens leaves after the request that took it spends one. */
export function keepLease(bucket: string, granted: number, bucketLeft: number, now = Date.now()): void {
  const lease = leases.get(bucket);
  if (lease) lease.renewingSince = undefined;
  if (granted <= 1) return;
  if (lease && lease.until > now) {
    // Renewed: what is left of the old lease lives on with the new one (every token was taken from the bucket).
    lease.left += granted - 1;
    lease.size = lease.left;
    lease.until = now + LEASE_MS;
    lease.bucketLeft = bucketLeft;
    return;
  }
  if (!lease && leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!);
  leases.set(bucket, { left: granted - 1, size: granted - 1, until: now + LEASE_MS, bucketLeft });
}

/** Drops the leases of a bucket (its key turned out unknown or revoked). */
export function dropLease(bucket: string): void {
  leases.delete(bucket);
}
