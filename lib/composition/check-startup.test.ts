import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../platform/config/env";
import { checkStartup, diagnoseStartup } from "./check-startup";

const VARS = [
  "WEBHOOK_ALLOWED_HOSTS", "JOB_RUNNER", "INNGEST_SIGNING_KEY", "INNGEST_EVENT_KEY", "INNGEST_DEV", "NODE_ENV", "DATABASE_URL", "DATABASE_DRIVER",
  "AGENTDRAFT_ENCRYPTION_KEYS", "AUTH_SECRET", "RESEND_API_KEY", "MAIL_FROM", "AGENTDRAFT_MAIL_DOMAIN", "MAIL_CAPTURE_ONLY", "MAIL_MAX_BYTES", "VERCEL", "AUTH_URL",
] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

function withEnv(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  const set = Object.entries(vars).filter(([, v]) => v !== undefined);
  Object.assign(process.env, { AGENTDRAFT_DATA_DIR: "memory://" }, Object.fromEntries(set));
  resetEnvCache();
}

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else (process.env as Record<string, string>)[v] = saved[v]!;
  }
  resetEnvCache();
});

const keys = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
const prod = { NODE_ENV: "production", AUTH_SECRET: "a-production-secret-of-32-characters!!", AGENTDRAFT_ENCRYPTION_KEYS: keys, MAIL_CAPTURE_ONLY: "1", AUTH_URL: "https://agentdraft.acme.com" } as const;
const inngest = { JOB_RUNNER: "inngest", INNGEST_SIGNING_KEY: "signkey-prod-abc", INNGEST_EVENT_KEY: "event-key-abc" } as const;
const resend = { RESEND_API_KEY: "re_live_key", AGENTDRAFT_MAIL_DOMAIN: "agents.acme.com", MAIL_FROM: "AgentDraft <agentdraft@agents.acme.com>" } as const;

describe("start-up checks for webhooks and background jobs", () => {
  it("refuses a malformed WEBHOOK_ALLOWED_HOSTS", async () => {
    withEnv({ WEBHOOK_ALLOWED_HOSTS: "localhost,10.0.0.0/99" });
    expect(await checkStartup()).toMatch(/WEBHOOK_ALLOWED_HOSTS: bad CIDR "10.0.0.0\/99"/);
  });

  it("refuses production without encryption keys, or Inngest without its keys, and accepts the defaults", async () => {
    withEnv({ ...prod, AGENTDRAFT_ENCRYPTION_KEYS: undefined });
    expect(await checkStartup()).toMatch(/AGENTDRAFT_ENCRYPTION_KEYS/);
    withEnv({ ...prod, JOB_RUNNER: "inngest" });
    expect(await checkStartup()).toMatch(/INNGEST_SIGNING_KEY/);
    withEnv({ ...prod, JOB_RUNNER: "inngest", INNGEST_SIGNING_KEY: "signkey-prod-abc" });
    expect(await checkStartup()).toMatch(/INNGEST_EVENT_KEY is not set/);
    withEnv({ ...prod, ...inngest });
    expect(await checkStartup()).toBeNull();
    withEnv({ WEBHOOK_ALLOWED_HOSTS: "localhost, 127.0.0.1/32" });
    expect(await checkStartup()).toBeNull();
  });

  it("refuses INNGEST_DEV in production (it serves /api/inngest unsigned), allows it in development", async () => {
    withEnv({ ...prod, ...inngest, INNGEST_DEV: "1" });
    expect(await checkStartup()).toMatch(/INNGEST_DEV is set in production/);
    withEnv({ INNGEST_DEV: "1" });
    expect(await checkStartup()).toBeNull();
  });
});

describe("start-up checks for mail in production", () => {
  it("refuses production without Resend unless capturing mail is asked for", async () => {
    withEnv({ ...prod, MAIL_CAPTURE_ONLY: undefined });
    expect(await checkStartup()).toMatch(/RESEND_API_KEY is not set: mail would only be captured.*set MAIL_CAPTURE_ONLY=1/);
    withEnv({ ...prod, MAIL_CAPTURE_ONLY: "1" });
    expect(await checkStartup()).toBeNull();
    withEnv({ MAIL_CAPTURE_ONLY: undefined }); // development captures mail without asking
    expect(await checkStartup()).toBeNull();
  });

  it("refuses Resend with the development domain or sender, naming the setting", async () => {
    withEnv({ ...prod, ...resend, AGENTDRAFT_MAIL_DOMAIN: undefined });
    expect(await checkStartup()).toMatch(/AGENTDRAFT_MAIL_DOMAIN is "agents.localhost": Resend refuses.*verified in Resend/);
    withEnv({ ...prod, ...resend, MAIL_FROM: undefined });
    expect(await checkStartup()).toMatch(/MAIL_FROM is "AgentDraft <agentdraft@localhost>".*Set MAIL_FROM/);
    withEnv({ ...prod, ...resend, MAIL_FROM: "ops@agents.example" });
    expect(await checkStartup()).toMatch(/MAIL_FROM/);
    withEnv({ ...prod, ...resend });
    expect(await checkStartup()).toBeNull();
  });
});

describe("start-up checks on Vercel", () => {
  const vercel = { ...prod, ...inngest, VERCEL: "1" } as const;

  it("refuses the embedded database (read-only files, one per instance)", async () => {
    withEnv(vercel);
    expect(await checkStartup()).toMatch(/DATABASE_URL is not set: on Vercel.*Neon integration/);
  });

  it("refuses MAIL_MAX_BYTES above the 4.5 MB body limit, and defaults below it", async () => {
    // A closed port: the settings pass, the database does not answer (a transient problem).
    const db = { DATABASE_URL: "postgres://u:p@127.0.0.1:1/x" };
    withEnv({ ...vercel, ...db, MAIL_MAX_BYTES: String(10 * 1024 * 1024) });
    expect(await diagnoseStartup()).toEqual({ reason: expect.stringMatching(/MAIL_MAX_BYTES is 10485760, above Vercel's 4.5 MB.*Set MAIL_MAX_BYTES to 4500000 or less/), transient: false });
    withEnv({ ...vercel, ...db });
    expect(await diagnoseStartup({ pingTimeoutMs: 2_000 })).toEqual({ reason: expect.stringMatching(/Cannot reach the database/), transient: true });
  });

  it("refuses embedded background work there (functions freeze between requests)", async () => {
    withEnv({ ...prod, VERCEL: "1", DATABASE_URL: "postgres://u:p@127.0.0.1:1/x" });
    expect(await checkStartup()).toMatch(/embedded engine does not start on Vercel/);
  });
});
