// @suite moved-clock
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { encodeId, isId, newId } from "./ids";

describe("newId", () => {
  it("has the type prefix and 26 Crockford base32 characters", () => {
    const id = newId("agent");
    expect(id).toMatch(/^agent_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(isId("agent", id)).toBe(true);
    expect(isId("workspace", id)).toBe(false);
  });

  it("sorts by creation time", () => {
    const ids = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000].map((t) => newId("apiKey", t));
    expect([...ids].sort()).toEqual(ids);
  });

  it("stays ordered within one millisecond", () => {
    const now = Date.now() + 10_000;
    const ids = Array.from({ length: 1000 }, () => newId("agent", now));
    expect([...ids].sort()).toEqual(ids);
  });

  it("does not repeat", () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newId("member", now)));
    expect(ids.size).toBe(10_000);
  });

  it("encodes like the 128-bit number it stands for (time << 80 | random) in base32", () => {
    const reference = (time: number, random: Uint8Array) => {
      let bits = (BigInt(time) << 80n) | BigInt(`0x${Buffer.from(random).toString("hex")}`);
      let out = "";
      for (let i = 0; i < 26; i++) {
        out = "0123456789abcdefghjkmnpqrstvwxyz"[Number(bits & 31n)] + out;
        bits >>= 5n;
      }
      return out;
    };
    const edges = [new Uint8Array(10), new Uint8Array(10).fill(255), Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])];
    for (const random of [...edges, ...Array.from({ length: 200 }, () => randomBytes(10))]) {
      for (const time of [0, 1, 1_700_000_000_000, 2 ** 48 - 1, Math.floor(Math.random() * 2 ** 48)]) {
        expect(encodeId(time, random)).toBe(reference(time, random));
      }
    }
  });
});
