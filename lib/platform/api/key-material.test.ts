import { describe, expect, it } from "vitest";
import { generateKey, hashKey, looksLikeKey } from "./key-material";

describe("generateKey", () => {
  it("makes a prefixed key with 32 random bytes and returns only its hash for storage", () => {
    const { key, prefix, hash } = generateKey("live");
    expect(key).toMatch(/^ad_live_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(8), "base64url")).toHaveLength(32);
    expect(prefix).toBe(key.slice(0, 16));
    expect(hash).toBe(hashKey(key));
    expect(hash).not.toContain(key.slice(8));
    expect(looksLikeKey(key)).toBe(true);
    expect(generateKey("test").key.startsWith("ad_test_")).toBe(true);
  });

  it("rejects strings that are not keys", () => {
    expect(looksLikeKey("ad_live_short")).toBe(false);
    expect(looksLikeKey("sk_live_" + "a".repeat(43))).toBe(false);
  });
});
