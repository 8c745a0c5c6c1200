import { hash, randomBytes } from "node:crypto";

export type KeyMode = "live" | "test";

const KEY_SHAPE = /^ad_(live|test)_[A-Za-z0-9_-]{43}$/;

/** `ad_live_` / `ad_test_` + 32 random bytes, base64url. Returned once, never stored. */
export function generateKey(mode: KeyMode): { key: string; prefix: string; hash: string } {
  const key = `ad_${mode}_${randomBytes(32).toString("base64url")}`;
  return { key, prefix: keyPrefix(key), hash: hashKey(key) };
}

/** The part shown in lists so a person can tell keys apart: `ad_live_AbCdEfGh`. */
export function keyPrefix(key: string): string {
  return key.slice(0, "ad_live_".length + 8);
}

/** Keys carry 256 bits of entropy, so an unsalted SHA-256 is a safe lookup hash. */
export function hashKey(key: string): string {
  return hash("sha256", key, "hex"); // one call, not three: the door hashes the key on every request
}

export function looksLikeKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}
