import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "../platform/config/env";
import { jobRunnerMode } from "../platform/jobs/job-runner-mode";

// No database: the engine's lock and work are stubs.
vi.mock("../platform/jobs/runner-lock", () => ({ acquireRunnerLock: async () => null }));
vi.mock("./job-kinds", () => ({ enabledKinds: () => [], enabledCrons: () => [] }));
const { startEmbeddedRunner } = await import("./start-embedded-runner");

const VARS = ["JOB_RUNNER", "INNGEST_SIGNING_KEY", "INNGEST_EVENT_KEY", "NEXT_PHASE", "VERCEL"] as const;
const g = globalThis as unknown as { __agentdraftRunner?: { stop: () => Promise<void> } };

function withEnv(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, vars);
  resetEnvCache();
}

afterEach(async () => {
  await g.__agentdraftRunner?.stop();
  g.__agentdraftRunner = undefined;
  withEnv({});
});

describe("which runner runs background jobs", () => {
  it("is the embedded runner without Inngest keys, Inngest with them, or what JOB_RUNNER says", () => {
    withEnv({});
    expect(jobRunnerMode()).toBe("embedded");
    withEnv({ INNGEST_SIGNING_KEY: "signkey-prod-x", INNGEST_EVENT_KEY: "evt" });
    expect(jobRunnerMode()).toBe("inngest");
    withEnv({ INNGEST_SIGNING_KEY: "signkey-prod-x", JOB_RUNNER: "embedded" });
    expect(jobRunnerMode()).toBe("embedded");
    withEnv({ JOB_RUNNER: "off" });
    expect(jobRunnerMode()).toBe("off");
  });

  it("starts the embedded runner once, and never during next build, with Inngest or when off", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    for (const vars of [{ NEXT_PHASE: "phase-production-build" }, { INNGEST_SIGNING_KEY: "k" }, { JOB_RUNNER: "off" }]) {
      withEnv(vars);
      startEmbeddedRunner();
      expect(g.__agentdraftRunner, JSON.stringify(vars)).toBeUndefined();
    }
    withEnv({});
    startEmbeddedRunner();
    const first = g.__agentdraftRunner;
    expect(first).toBeDefined();
    startEmbeddedRunner();
    expect(g.__agentdraftRunner).toBe(first);
    log.mockRestore();
  });

  it("refuses to start on Vercel unless asked for explicitly, saying to configure Inngest", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    withEnv({ VERCEL: "1" });
    startEmbeddedRunner();
    expect(g.__agentdraftRunner).toBeUndefined();
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/does not start on Vercel.*INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY.*JOB_RUNNER=embedded/));
    withEnv({ VERCEL: "1", JOB_RUNNER: "embedded" });
    startEmbeddedRunner();
    expect(g.__agentdraftRunner).toBeDefined();
    error.mockRestore();
    log.mockRestore();
  });
});
