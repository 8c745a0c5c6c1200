import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "./env";
import { checkStartup } from "./check-startup";

const VARS = ["WEBHOOK_ALLOWED_HOSTS", "JOB_RUNNER", "INNGEST_SIGNING_KEY", "NODE_ENV", "DATABASE_URL"] as const;
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

  it("refuses Inngest in production without a signing key, and accepts the defaults", async () => {
    withEnv({ NODE_ENV: "production", JOB_RUNNER: "inngest" });
    expect(await checkStartup()).toMatch(/INNGEST_SIGNING_KEY/);
    withEnv({ NODE_ENV: "production", JOB_RUNNER: "inngest", INNGEST_SIGNING_KEY: "signkey-prod-abc" });
    expect(await checkStartup()).toBeNull();
    withEnv({ WEBHOOK_ALLOWED_HOSTS: "localhost, 127.0.0.1/32" });
    expect(await checkStartup()).toBeNull();
  });
});
