// @suite pooled
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { resetEnvCache } from "../config/env";

const { api } = serveApiForTests();
// A refill so slow (one token per 100 s) that a loaded machine cannot make a test see one.
const LIMITS = {
  API_RATE_LIMIT_BURST: "5",
  API_RATE_LIMIT_PER_SECOND: "0.01",
  API_WORKSPACE_RATE_LIMIT_BURST: "12",
  API_WORKSPACE_RATE_LIMIT_PER_SECOND: "0.01",
};

beforeAll(() => {
  Object.assign(process.env, LIMITS);
  resetEnvCache();
});
afterAll(() => {
  for (const k of Object.keys(LIMITS)) delete process.env[k];
  resetEnvCache();
});

describe("per-key rate limit", () => {
  it("allows the burst, then answers 429 with retry-after, per key", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const { key: otherKey } = await newKey(workspace.id);

    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await api("/api/v1/me", { key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);

    const limited = await api("/api/v1/me", { key });
    expect(limited.json.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    // Another key has its own bucket.
    expect((await api("/api/v1/me", { key: otherKey })).status).toBe(200);
  });

  it("lets exactly the burst through when 20 requests race", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const results = await Promise.all(Array.from({ length: 20 }, () => api("/api/v1/me", { key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
  });
});

describe("per-workspace rate limit", () => {
  it("caps all keys of a workspace together, beside each key's own bucket", async () => {
    const { workspace } = await newWorkspace();
    const keys = [(await newKey(workspace.id)).key, (await newKey(workspace.id)).key, (await newKey(workspace.id)).key];
    const statuses: number[] = [];
    for (const key of keys) for (let i = 0; i < 5; i++) statuses.push((await api("/api/v1/me", { key })).status);
    expect(statuses).toEqual([...Array(12).fill(200), 429, 429, 429]);
    const limited = await api("/api/v1/me", { key: (await newKey(workspace.id)).key });
    expect(limited.json).toMatchObject({ code: "rate_limited", scope: "workspace" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another workspace is not affected.
    const other = await newWorkspace();
    expect((await api("/api/v1/me", { key: (await newKey(other.workspace.id)).key })).status).toBe(200);
  });
});

// Two server processes on one Postgres database share each key's bucket.
describe.runIf(process.env.AGENTDRAFT_TEST_DB === "postgres")("rate limit across server instances", () => {
  let child: ChildProcess;
  let childUrl: string;

  beforeAll(async () => {
    child = spawn(process.execPath, ["--import", "tsx", "test/helpers/serve-api.ts"], {
      env: { ...process.env, ...LIMITS },
      stdio: ["ignore", "pipe", "inherit"],
    });
    childUrl = await new Promise<string>((resolve, reject) => {
      child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()));
      child.once("exit", (code) => reject(new Error(`second server exited with ${code}`)));
    });
  });
  afterAll(() => {
    child?.kill("SIGTERM");
  });

  it("holds the limit when requests alternate between two instances", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      if (i % 2 === 0) statuses.push((await api("/api/v1/me", { key })).status);
      else statuses.push((await fetch(`${childUrl}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });
});
