import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "./lib/platform/config/env";
import { resetStartupGate } from "./lib/platform/config/startup-gate";

// What a server instance loads and starts as it boots (instrumentation.ts): each module below
// records being imported, so the test sees what a cold start pays for.
const loaded = vi.hoisted(() => new Set<string>());
vi.mock("./lib/composition/start-embedded-runner", () => (loaded.add("embedded engine"), { startEmbeddedRunner: () => {} }));
vi.mock("./lib/composition/job-kinds", () => (loaded.add("work registry"), { enabledKinds: () => [], enabledCrons: () => [] }));
vi.mock("./lib/domains/auth/announce-setup", () => (loaded.add("setup link"), { announceSetupLink: async () => {} }));
vi.mock("@googleapis/calendar", () => (loaded.add("google calendar"), {}));
vi.mock("google-auth-library", () => (loaded.add("google auth"), {}));
const { register } = await import("./instrumentation");

const VARS = ["NEXT_RUNTIME", "JOB_RUNNER", "INNGEST_SIGNING_KEY", "INNGEST_EVENT_KEY", "AGENTDRAFT_DATA_DIR", "DATABASE_URL"] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
function withEnv(vars: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, { NEXT_RUNTIME: "nodejs", AGENTDRAFT_DATA_DIR: "memory://" }, vars);
  resetEnvCache();
}
afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else (process.env as Record<string, string>)[v] = saved[v]!;
  }
  resetEnvCache();
  resetStartupGate();
  loaded.clear();
});

const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("a server instance's start (instrumentation.ts)", () => {
  it("in Inngest mode loads nothing of the engine, the registry or Google, and starts no timer", async () => {
    withEnv({ INNGEST_SIGNING_KEY: "signkey-test-abc", INNGEST_EVENT_KEY: "event-key" });
    const before = timers();
    await register();
    await new Promise((r) => setTimeout(r, 20));
    expect([...loaded]).toEqual([]);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it("in embedded mode starts the engine (so the test above would see it)", async () => {
    withEnv({});
    await register();
    expect(loaded.has("embedded engine")).toBe(true);
    expect(loaded.has("google calendar") || loaded.has("google auth")).toBe(false);
  });
});
