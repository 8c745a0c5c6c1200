import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../test/helpers/api-client";
import { newKey, newWorkspace } from "../test/helpers/fixtures";
import { setTestEnv } from "../test/helpers/env";
import { overlappingBusy } from "../test/helpers/calendar-invariants";
import { runCli } from "./main";
import { grantsIn } from "./loadtest/holds-scenario";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { url } = serveApiForTests();

async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { write: (s: string) => (stdout += s) }, { write: (s: string) => (stderr += s) });
  return { code, stdout, stderr };
}

describe("npx agentdraft loadtest", () => {
  it("runs agents against a deployment (here: loopback) and reports a summary", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id, { scopes: ["calendar"] });
    const r = await cli("loadtest", "--url", url(), "--key", key, "--agents", "6", "--seconds", "1.5", "--calendars", "2", "--slots", "3", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ agents: 6, calendars: 2, slots: 3 });
    expect(out.summary.requests).toBeGreaterThan(5);
    expect(grantsIn(out.summary.outcomes)).toBeGreaterThan(0);
    // Random priorities: a grant can be preempted before its agent commits it ("granted_then_<code>", still a grant).
    expect(Object.keys(out.summary.outcomes).filter((k) => k !== "granted" && k !== "hold_conflict" && !k.startsWith("granted_then_"))).toEqual([]);
    expect(await overlappingBusy(workspace.id)).toEqual([]);

    const human = await cli("loadtest", "--url", url(), "--key", key, "--agents", "2", "--seconds", "0.5", "--calendars", "1");
    expect(human.stdout).toMatch(/attempts\/s\s+holds\/s\s+p50 ms/);
  });

  it.each([
    [["--key", "ad_live_x"], /--url must be/],
    [["--url", "http://127.0.0.1:1"], /--key must be/],
    [["--url", "http://127.0.0.1:1", "--key", "ad_live_x", "--agents", "0"], /--agents must be/],
    [["--url", "http://127.0.0.1:1", "--key", "ad_live_x"], /Cannot reach/],
  ])("refuses %j with a usage error", async (args, message) => {
    const r = await cli("loadtest", ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
