import { describe, expect, it } from "vitest";
import { checkDestination, isAllowlistedHost, isForbiddenAddress, parseAllowlist, SsrfRefusedError, type Resolver } from "./ssrf-guard";

const stub =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("SSRF guard", () => {
  it.each([
    "10.1.2.3", "172.16.0.1", "192.168.1.1", // private
    "127.0.0.1", "127.9.9.9", "::1", // loopback
    "169.254.169.254", "fe80::1", // link-local
    "100.64.0.1", "100.127.255.254", // CGNAT
    "224.0.0.1", "ff02::1", // multicast
    "0.0.0.0", "::", // unspecified
    "240.0.0.1", "255.255.255.255", "192.0.2.1", "198.18.0.1", // reserved, documentation, benchmarking
    "fc00::1", "fd12:3456::1", // ULA
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:8.8.8.8", // IPv4-mapped
    "64:ff9b::a00:1", "2002:a00:1::1", "2001:db8::1", // NAT64, 6to4, documentation
  ])("refuses %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(["93.184.216.34", "1.1.1.1", "100.128.0.1", "2606:4700::1111"])("admits public %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it("refuses a name that resolves to a private address, without connecting", async () => {
    const allow = parseAllowlist("");
    await expect(checkDestination(new URL("https://hooks.example.test/x"), allow, stub("10.0.0.5"))).rejects.toThrow(SsrfRefusedError);
    await expect(checkDestination(new URL("https://hooks.example.test/x"), allow, stub("169.254.169.254"))).rejects.toThrow(/169\.254/);
    await expect(checkDestination(new URL("https://hooks.example.test/x"), allow, stub("fd00::1"))).rejects.toThrow(SsrfRefusedError);
  });

  it("refuses a name if any of its addresses is forbidden (an attacker picks the order)", async () => {
    await expect(checkDestination(new URL("https://h.example.test/"), parseAllowlist(""), stub("1.1.1.1", "127.0.0.1"))).rejects.toThrow(
      SsrfRefusedError,
    );
  });

  it("refuses loopback literals left off the allowlist", async () => {
    for (const url of ["http://127.0.0.1:9/x", "http://[::1]:9/x", "http://[::ffff:127.0.0.1]:9/"]) {
      await expect(checkDestination(new URL(url), parseAllowlist("localhost,10.0.0.0/8"))).rejects.toThrow(SsrfRefusedError);
    }
  });

  it("returns the checked address to connect to, and admits allowlisted hosts and CIDRs", async () => {
    expect(await checkDestination(new URL("https://h.example.test/"), parseAllowlist(""), stub("1.1.1.1"))).toEqual({ address: "1.1.1.1", family: 4 });
    const allow = parseAllowlist(" localhost , 127.0.0.1/32, fd00::/8 ");
    expect(await checkDestination(new URL("http://127.0.0.1:3000/"), allow)).toEqual({ address: "127.0.0.1", family: 4 });
    expect(await checkDestination(new URL("http://localhost/"), allow, stub("127.0.0.1"))).toEqual({ address: "127.0.0.1", family: 4 });
    expect(await checkDestination(new URL("http://svc.internal/"), allow, stub("fd00::5"))).toEqual({ address: "fd00::5", family: 6 });
    await expect(checkDestination(new URL("http://127.0.0.2/"), allow)).rejects.toThrow(SsrfRefusedError);
    expect(isAllowlistedHost(allow, "LOCALHOST")).toBe(true);
    expect(isAllowlistedHost(allow, "127.0.0.1")).toBe(true);
    expect(isAllowlistedHost(allow, "example.com")).toBe(false);
  });

  it("rejects a malformed allowlist entry", () => {
    expect(() => parseAllowlist("10.0.0.0/33")).toThrow(/bad CIDR/);
    expect(() => parseAllowlist("http://x")).toThrow(/neither/);
  });
});
