import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../platform/config/env";
import { isSetupToken, setupToken } from "./setup-token";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

function withEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
}

describe("the first-run setup token", () => {
  it("is required in production: without AGENTDRAFT_SETUP_TOKEN setup is locked, whatever a visitor sends", () => {
    withEnv({ NODE_ENV: "production", AGENTDRAFT_SETUP_TOKEN: undefined, AGENTDRAFT_DATA_DIR: "memory://" });
    expect(setupToken()).toBeNull();
    expect(isSetupToken("")).toBe(false);
    expect(isSetupToken("anything-at-all-0000")).toBe(false);
  });

  it("is the configured one when set, compared whole", () => {
    withEnv({ NODE_ENV: "production", AGENTDRAFT_SETUP_TOKEN: "s3tup-token-for-this-deployment" });
    expect(isSetupToken("s3tup-token-for-this-deployment")).toBe(true);
    expect(isSetupToken("s3tup-token-for-this-deploymen")).toBe(false);
    expect(isSetupToken(undefined)).toBe(false);
  });

  it("outside production, one is made and kept (printed by npm run dev)", () => {
    withEnv({ NODE_ENV: "development", AGENTDRAFT_SETUP_TOKEN: undefined, AGENTDRAFT_DATA_DIR: "memory://" });
    const token = setupToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(setupToken()).toBe(token);
    expect(isSetupToken(token)).toBe(true);
  });
});
