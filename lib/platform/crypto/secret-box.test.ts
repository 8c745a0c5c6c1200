import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../config/env";
import { open, resetSecretBoxCache, seal } from "./secret-box";

const withKeys = (value: string | undefined, nodeEnv = "test") => {
  if (value === undefined) delete process.env.AGENTDRAFT_ENCRYPTION_KEYS;
  else process.env.AGENTDRAFT_ENCRYPTION_KEYS = value;
  (process.env as Record<string, string>).NODE_ENV = nodeEnv;
  process.env.AGENTDRAFT_DATA_DIR = "memory://";
  resetEnvCache();
  resetSecretBoxCache();
};

afterEach(() => withKeys(undefined));

describe("secret box", () => {
  it("round-trips, and a rotated-in key still opens what the old key sealed", () => {
    const oldKey = randomBytes(32).toString("base64");
    const newKey = randomBytes(32).toString("base64");
    withKeys(oldKey);
    const sealed = seal("private jwk");
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(sealed).not.toContain("private");
    withKeys(`${newKey},${oldKey}`);
    expect(open(sealed)).toBe("private jwk");
    expect(open(seal("again")).length).toBe(5);
  });

  it("refuses tampered ciphertext and unknown keys", () => {
    withKeys(randomBytes(32).toString("base64"));
    const sealed = seal("secret");
    // Flip one bit of the ciphertext itself: editing base64 text can land on padding bits and change nothing.
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    const tampered = [...parts.slice(0, 3), body.toString("base64url")].join(".");
    expect(tampered).not.toBe(sealed);
    expect(() => open(tampered)).toThrow();
    withKeys(randomBytes(32).toString("base64"));
    expect(() => open(sealed)).toThrow(/no configured key/);
  });

  it("refuses to run in production without keys, and rejects malformed keys", () => {
    withKeys(undefined, "production");
    expect(() => seal("x")).toThrow(/required in production/);
    withKeys("c2hvcnQ=");
    expect(() => seal("x")).toThrow(/32 bytes/);
  });
});
