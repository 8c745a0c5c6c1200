import { BlockList, isIP, type LookupFunction } from "node:net";
import { lookup as dnsLookup } from "node:dns/promises";

/** Resolves a host name to all its addresses (dns.lookup by default; tests pass a stub). */
export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Addresses delivery never reaches unless allowlisted: everything that is not public unicast.
 * Two lists: a BlockList checks an IPv4 address against IPv6 rules too (as ::ffff:a.b.c.d).
 */
const FORBIDDEN_V4 = new BlockList();
const FORBIDDEN_V6 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) FORBIDDEN_V4.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::ffff:0:0", 96], // IPv4-mapped
  ["64:ff9b::", 96], // NAT64 (embeds an IPv4 address)
  ["64:ff9b:1::", 48], // local NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo...)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (embeds an IPv4 address)
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) FORBIDDEN_V6.addSubnet(net, prefix, "ipv6");
/** IPv6 outside global unicast (2000::/3) is reserved. */
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet("2000::", 3, "ipv6");

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN_V4.check(address, "ipv4");
  if (family === 6) return FORBIDDEN_V6.check(address, "ipv6") || !GLOBAL_UNICAST_V6.check(address, "ipv6");
  return true;
}

/** The operator's allowlist (WEBHOOK_ALLOWED_HOSTS): host names, IP addresses and CIDRs, comma-separated. */
export type Allowlist = { hosts: Set<string>; v4: BlockList; v6: BlockList; empty: boolean };

export function parseAllowlist(value: string): Allowlist {
  const hosts = new Set<string>();
  const v4 = new BlockList();
  const v6 = new BlockList();
  let empty = true;
  for (const raw of value.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    empty = false;
    const [ip, bits] = entry.split("/") as [string, string | undefined];
    const family = isIP(stripBrackets(ip));
    if (family) {
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new Error(`WEBHOOK_ALLOWED_HOSTS: bad CIDR "${raw.trim()}"`);
      }
      if (family === 4) v4.addSubnet(ip, prefix, "ipv4");
      else v6.addSubnet(stripBrackets(ip), prefix, "ipv6");
    } else if (bits === undefined && /^[a-z0-9.-]+$/.test(entry)) {
      hosts.add(entry.replace(/\.$/, ""));
    } else {
      throw new Error(`WEBHOOK_ALLOWED_HOSTS: "${raw.trim()}" is neither a host name nor an IP address or CIDR`);
    }
  }
  return { hosts, v4, v6, empty };
}

const stripBrackets = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

function addressAllowed(allow: Allowlist, address: string): boolean {
  const family = isIP(address);
  if (family === 4) return allow.v4.check(address, "ipv4");
  return family === 6 && allow.v6.check(address, "ipv6");
}

/** True when the operator allowlisted this URL's host by name or by address. */
export function isAllowlistedHost(allow: Allowlist, hostname: string): boolean {
  const host = stripBrackets(hostname.toLowerCase()).replace(/\.$/, "");
  return allow.hosts.has(host) || (isIP(host) !== 0 && addressAllowed(allow, host));
}

export class SsrfRefusedError extends Error {
  override name = "SsrfRefusedError";
}

/**
 * Resolves the URL's host and returns the one address to connect to, refusing the whole
 * host if any address it resolves to is forbidden and not allowlisted (an attacker controls
 * what a name resolves to, and the order). The caller must connect to exactly this address.
 */
export async function checkDestination(
  url: URL,
  allow: Allowlist,
  resolve: Resolver = systemResolver,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = stripBrackets(url.hostname.toLowerCase()).replace(/\.$/, "");
  const literal = isIP(host);
  const resolved = literal ? [{ address: host, family: literal as 4 | 6 }] : await resolve(host);
  if (resolved.length === 0) throw new SsrfRefusedError(`${host} did not resolve to any address`);
  const byName = allow.hosts.has(host);
  for (const a of resolved) {
    if (isForbiddenAddress(a.address) && !byName && !addressAllowed(allow, a.address)) {
      throw new SsrfRefusedError(
        `${host} resolves to ${a.address}, a private, loopback, link-local or reserved address; ` +
          `add it to WEBHOOK_ALLOWED_HOSTS to allow delivery there`,
      );
    }
  }
  return resolved[0]!;
}

/**
 * A socket `lookup` that answers `address` (already checked above) whatever DNS says now, so a
 * rebinding answer is never used; the Host header and TLS SNI keep the URL's host name.
 */
export function pinnedLookup(address: { address: string; family: number }): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [address]);
    else cb(null, address.address, address.family);
  }) as unknown as LookupFunction;
}
