// @suite moved-clock
import { describe, expect, it } from "vitest";
import { keepLease, spendLeased } from "./token-leases";

const bucket = () => `key:test-${Math.random().toString(36).slice(2)}`;

describe("token leases", () => {
  it("spends a lease locally, then lets one request at a time renew it ahead while the rest go on", () => {
    const b = bucket();
    const t = 1_000_000;
    expect(spendLeased(b, t)).toBeNull(); // none yet: the database
    keepLease(b, 31, 500, t); // the request that took the lease spent one: 30 left
    const spent = [];
    for (let i = 0; i < 21; i++) spent.push(spendLeased(b, t + 10));
    expect(spent.every((s) => s !== null)).toBe(true); // 9 left: in its last third
    expect(spendLeased(b, t + 10)).toBeNull(); // this one renews
    expect(spendLeased(b, t + 10)).not.toBeNull(); // the others keep spending meanwhile
    keepLease(b, 31, 400, t + 20); // renewed: 8 left + 30
    let n = 0;
    while (spendLeased(b, t + 30)) n++;
    expect(n).toBeGreaterThan(20); // the remainder and the new lease, until the next renewal point
  });

  it("renews in a lease's last third of time too, and drops it when its time is up", () => {
    const b = bucket();
    const t = 2_000_000;
    keepLease(b, 101, 900, t);
    expect(spendLeased(b, t + 100)).not.toBeNull();
    expect(spendLeased(b, t + 700)).toBeNull(); // 300 ms left of 1000: renew
    expect(spendLeased(b, t + 710)).not.toBeNull();
    expect(spendLeased(b, t + 1001)).toBeNull(); // expired, renewal or not
    expect(spendLeased(b, t + 1002)).toBeNull();
  });

  it("a renewal that gets no more than one token clears the mark, so another may try", () => {
    const b = bucket();
    const t = 3_000_000;
    keepLease(b, 31, 500, t);
    for (let i = 0; i < 21; i++) spendLeased(b, t);
    expect(spendLeased(b, t)).toBeNull(); // renewing
    keepLease(b, 1, 0, t); // near the limit: a single token, no lease
    expect(spendLeased(b, t)).toBeNull(); // the next request renews again
  });
});
