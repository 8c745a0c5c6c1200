import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "./env";
import { checkStartup } from "./check-startup";

const VARS = ["WEBHOOK_ALLOWED_HOSTS", "JOB_RUNNER", "INNGEST_SIGNING_KEY", "INNGEST_DEV", "NODE_ENV", "DATABASE_URL", "AGENTDRAFT_ENCRYPTION_KEYS", "AUTH_SECRET"] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

function withEnv(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, { AGENTDRAFT_DATA_DIR: "memory://" }, vars);
  resetEnvCache();
}

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else (process.env as Record<string, string>)[v] = saved[v]!;
  }
  resetEnvCache();
});

describe("start-up checks for webhooks and background jobs", () => {
  it("refuses a malformed WEBHOOK_ALLOWED_HOSTS", async () => {
    withEnv({ WEBHOOK_ALLOWED_HOSTS: "localhost,10.0.0.0/99" });
    expect(await checkStartup()).toMatch(/WEBHOOK_ALLOWED_HOSTS: bad CIDR "10.0.0.0\/99"/);
  });

  it("refuses production without encryption keys, or Inngest without a signing key, and accepts the defaults", async () => {
    const prod = { NODE_ENV: "production", AUTH_SECRET: "a-production-secret-of-32-characters!!" } as const;
    const keys = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    withEnv(prod);
    expect(await checkStartup()).toMatch(/AGENTDRAFT_ENCRYPTION_KEYS/);
    withEnv({ ...prod, AGENTDRAFT_ENCRYPTION_KEYS: keys, JOB_RUNNER: "inngest" });
    expect(await checkStartup()).toMatch(/INNGEST_SIGNING_KEY/);
    withEnv({ ...prod, AGENTDRAFT_ENCRYPTION_KEYS: keys, JOB_RUNNER: "inngest", INNGEST_SIGNING_KEY: "signkey-prod-abc" });
    expect(await checkStartup()).toBeNull();
    withEnv({ WEBHOOK_ALLOWED_HOSTS: "localhost, 127.0.0.1/32" });
    expect(await checkStartup()).toBeNull();
  });

  it("refuses INNGEST_DEV in production (it serves /api/inngest unsigned), allows it in development", async () => {
    const prod = { NODE_ENV: "production", AUTH_SECRET: "a-production-secret-of-32-characters!!", AGENTDRAFT_ENCRYPTION_KEYS: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" } as const;
    withEnv({ ...prod, INNGEST_DEV: "1", JOB_RUNNER: "inngest", INNGEST_SIGNING_KEY: "signkey-prod-abc" });
    expect(await checkStartup()).toMatch(/INNGEST_DEV is set in production/);
    withEnv({ INNGEST_DEV: "1" });
    expect(await checkStartup()).toBeNull();
  });
});
