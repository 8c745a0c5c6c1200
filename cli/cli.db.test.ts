import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../db/client";
import { apiKeys } from "../db/schema";
import { hashKey } from "../lib/platform/api/key-material";
import { lockDataDir } from "../db/pglite-lock";
import { runCli } from "./main";

function sink() {
  let text = "";
  return { stream: { write: (chunk: string) => (text += chunk) }, text: () => text };
}

async function cli(...argv: string[]) {
  const out = sink();
  const err = sink();
  const code = await runCli(argv, out.stream, err.stream);
  return { code, stdout: out.text(), stderr: err.text(), json: () => JSON.parse(out.text()) };
}

describe("agentdraft CLI", () => {
  it("creates a workspace, an agent and an agent-bound key, printing the key once", async () => {
    const ws = await cli("workspace", "create", "--name", "Acme Ops", "--json");
    expect(ws.code).toBe(0);
    expect(ws.json()).toMatchObject({ object: "workspace", name: "Acme Ops", id: expect.stringMatching(/^ws_/) });

    const agent = await cli("agent", "create", "--workspace", ws.json().id, "--name", "ops-agent", "--json");
    expect(agent.code).toBe(0);
    expect(agent.json()).toMatchObject({ object: "agent", name: "ops-agent", id: expect.stringMatching(/^agent_/) });

    const key = await cli("key", "create", "--workspace", ws.json().id, "--agent", "ops-agent", "--scopes", "calendar,mail", "--json");
    expect(key.code).toBe(0);
    const created = key.json();
    expect(created).toMatchObject({ agent_id: agent.json().id, scopes: ["calendar", "mail"], mode: "live", revoked_at: null });
    expect(created.key).toMatch(/^ad_live_/);

    // Only the hash and a display prefix are stored.
    const db = await getDb();
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row?.hash).toBe(hashKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect(created.key.startsWith(row!.prefix)).toBe(true);

    const revoked = await cli("key", "revoke", "--id", created.id, "--json");
    expect(revoked.code).toBe(0);
    expect(revoked.json().revoked_at).toEqual(expect.any(String));
    expect(revoked.json()).not.toHaveProperty("key");
  });

  it("prints human-readable output without --json", async () => {
    const ws = await cli("workspace", "create", "--name", "Readable");
    expect(ws.stdout).toMatch(/^Created workspace ws_\w+ \(Readable\)\.\n$/);
    const id = ws.stdout.match(/ws_\w+/)![0];
    const key = await cli("key", "create", "--workspace", id);
    expect(key.stdout).toContain("workspace-wide, scopes: all");
    expect(key.stdout).toContain("shown only this once");
  });

  it.each([
    [["frob"], 2, /Unknown command "frob"/],
    [["workspace", "create"], 2, /--name is required/],
    [["workspace", "create", "--name"], 2, /argument missing/],
    [["agent", "create", "--workspace", "ws_x", "--name", "a", "--colour", "red"], 2, /Unknown option '--colour'/],
    [["agent", "create", "--workspace", "ws_missing", "--name", "a"], 1, /No workspace with id ws_missing/],
    [["key", "revoke", "--id", "key_missing"], 1, /No API key with id key_missing/],
  ])("refuses %j with exit code %i and says why", async (argv, exitCode, message) => {
    const r = await cli(...argv);
    expect(r.code).toBe(exitCode);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("lists validation problems per field, as JSON with --json", async () => {
    const ws = (await cli("workspace", "create", "--name", "Scopes", "--json")).json();
    const r = await cli("key", "create", "--workspace", ws.id, "--scopes", "calendar,root", "--json");
    expect(r.code).toBe(2);
    const body = JSON.parse(r.stderr);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.errors).toEqual([{ field: "scopes.1", message: expect.stringContaining("mail") }]);
  });

  it("refuses a duplicate agent name in one workspace, and allows it in another", async () => {
    const a = (await cli("workspace", "create", "--name", "A", "--json")).json();
    const b = (await cli("workspace", "create", "--name", "B", "--json")).json();
    expect((await cli("agent", "create", "--workspace", a.id, "--name", "twin")).code).toBe(0);
    const dup = await cli("agent", "create", "--workspace", a.id, "--name", "twin");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    expect((await cli("agent", "create", "--workspace", b.id, "--name", "twin")).code).toBe(0);
  });

  it("will not bind a key to another workspace's agent", async () => {
    const a = (await cli("workspace", "create", "--name", "A", "--json")).json();
    const b = (await cli("workspace", "create", "--name", "B", "--json")).json();
    const agent = (await cli("agent", "create", "--workspace", a.id, "--name", "mine", "--json")).json();
    const r = await cli("key", "create", "--workspace", b.id, "--agent", agent.id);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No agent with id/);
  });
});

// The installed bin, as an operator runs it, on its own on-disk embedded database (once: it
// does not use the run's database).
describe.runIf(process.env.AGENTDRAFT_TEST_DB === "pglite")("bin/agentdraft.mjs", { timeout: 180_000 }, () => {
  const run = promisify(execFile);
  const bin = path.resolve("bin/agentdraft.mjs");

  // One fresh data directory, as an operator meets it before any `npm run dev` or `db migrate`
  // (each process start loads the app and the embedded database: a few seconds, so few of them).
  it("migrates a fresh embedded database before the first write, says so, then works as usual, and refuses a database another process holds", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-cli-"));
    const env: NodeJS.ProcessEnv = { ...process.env, AGENTDRAFT_DATA_DIR: path.join(dir, "db") };
    delete env.DATABASE_URL;
    try {
      const ws = await run("node", [bin, "workspace", "create", "--name", "First run", "--json"], { env });
      expect(ws.stderr).toMatch(/^Migrated the embedded database in .*db \(\d+ migrations, latest \d{4}_\w+\)\.$/m);
      expect(JSON.parse(ws.stdout)).toMatchObject({ object: "workspace", name: "First run", id: expect.stringMatching(/^ws_/) });

      const agent = await run("node", [bin, "agent", "create", "--workspace", JSON.parse(ws.stdout).id, "--name", "scout", "--json"], { env });
      expect(agent.stderr).toBe(""); // migrated once: nothing more to say
      expect(JSON.parse(agent.stdout)).toMatchObject({ object: "agent", name: "scout" });
      const migrated = await run("node", [bin, "db", "migrate", "--json"], { env });
      expect(JSON.parse(migrated.stdout)).toMatchObject({ driver: "pglite", pending: [] });

      const release = lockDataDir(path.join(dir, "db")); // as a running server would
      try {
        await expect(run("node", [bin, "db", "status"], { env })).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining(`in use by process ${process.pid}`),
        });
      } finally {
        release();
      }
      expect((await run("node", [bin, "db", "status"], { env })).stdout).toContain("Pending: none");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says what is wrong with a bad DATABASE_URL, without a stack trace", async () => {
    const env = { ...process.env, DATABASE_URL: "mysql://root@localhost/db" };
    const err = await run("node", [bin, "db", "status"], { env }).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toBe(
      'error: DATABASE_URL must start with postgres:// or postgresql:// (got "mysql://"). Leave it unset to use the embedded database.\n',
    );
  });
});
