import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../lib/platform/config/env";
import { newWorkspace } from "../test/helpers/fixtures";
import { runCli } from "./main";

// The CLI on a deployment without RESEND_API_KEY (the embedded default): domains are capture_only.
const savedKey = process.env.RESEND_API_KEY;
beforeAll(() => {
  delete process.env.RESEND_API_KEY;
  resetEnvCache();
});
afterAll(() => {
  if (savedKey !== undefined) process.env.RESEND_API_KEY = savedKey;
  resetEnvCache();
});

async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { write: (c: string) => (stdout += c) }, { write: (c: string) => (stderr += c) });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

describe("agentdraft domains", () => {
  it("adds, lists and verifies a workspace's domain; refuses a bad name with the reason", async () => {
    const { workspace } = await newWorkspace();
    const name = `support.acme-${randomBytes(5).toString("hex")}.com`;
    const added = await cli("domains", "add", "--workspace", workspace.id, "--name", name, "--json");
    expect(added.code).toBe(0);
    expect(added.json()).toMatchObject({ object: "domain", name, status: "capture_only" });

    const listed = await cli("domains", "list", "--workspace", workspace.id);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${name}  capture_only`);
    expect(listed.stdout).toMatch(/nothing is verified/i);

    const verified = await cli("domains", "verify", "--workspace", workspace.id, "--id", name, "--json");
    expect(verified.code).toBe(0);
    expect(verified.json()).toMatchObject({ id: added.json().id, status: "capture_only" });

    const bad = await cli("domains", "add", "--workspace", workspace.id, "--name", "10.0.0.1");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("IP address");
    const missing = await cli("domains", "verify", "--workspace", workspace.id, "--id", "nope.example.org");
    expect(missing.code).not.toBe(0);
  });
});
