import { describe, expect, it } from "vitest";
import { authSecret, authSecretProblem } from "./auth-secret";
import type { Env } from "./env";

const base = { NODE_ENV: "production" } as Env;

describe("AUTH_SECRET", () => {
  it("is required in production: the startup check names it and authSecret() refuses", () => {
    expect(authSecretProblem(base)).toMatch(/AUTH_SECRET is not set/);
    expect(() => authSecret(base)).toThrow(/AUTH_SECRET/);
  });

  it("is used when set", () => {
    const e = { ...base, AUTH_SECRET: "x".repeat(40) };
    expect(authSecretProblem(e)).toBeNull();
    expect(authSecret(e)).toBe("x".repeat(40));
  });

  it("falls back to a dev-only secret outside production", () => {
    const dev = { NODE_ENV: "development" } as Env;
    expect(authSecretProblem(dev)).toBeNull();
    expect(authSecret(dev)).toMatch(/development-only/);
  });
});
