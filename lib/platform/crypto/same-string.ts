import { timingSafeEqual } from "node:crypto";

/**
 * Whether two secrets (an OAuth or SSO state, a request id from a cookie) are equal, in time that
 * does not depend on where they differ. Compares bytes: strings of one length in characters can
 * differ in bytes (non-ASCII), where timingSafeEqual would throw instead of answering false.
 */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
