import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "../db/client";

const run = promisify(execFile);
const bin = path.resolve("bin/agentdraft.mjs");
type Failed = { code: number; stdout: string; stderr: string };

// The CLI as an operator runs it, in its own process, on a database server nobody migrated yet.
// (On a fresh embedded data directory it migrates by itself: cli.db.test.ts.)
describe.runIf(process.env.AGENTDRAFT_TEST_DB === "postgres")("the CLI on an empty database server", () => {
  it("writes nothing and says exactly what to run", { timeout: 120_000 }, async () => {
    const db = await getDb();
    const name = `agentdraft_fresh_${process.pid}_${Date.now()}`;
    await db.execute(sql.raw(`create database ${name}`));
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      const env = { ...process.env, DATABASE_URL: url.toString() };
      const failed = (await run("node", [bin, "workspace", "create", "--name", "Too early"], { env }).catch((e: Failed) => e)) as Failed;
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toMatch(/^error: The database at DATABASE_URL is not migrated \(\d+ pending, from 0000_foundation\)\. Run `npx agentdraft db migrate` \(with the same DATABASE_URL\) first, then this command again\.$/);
      const json = (await run("node", [bin, "workspace", "create", "--name", "Too early", "--json"], { env }).catch((e: Failed) => e)) as Failed;
      expect(JSON.parse(json.stderr).error.code).toBe("database_not_migrated");
      // Nothing was created, not even drizzle's bookkeeping.
      const status = await run("node", [bin, "db", "status", "--json"], { env });
      expect(JSON.parse(status.stdout)).toMatchObject({ applied: 0, latest: null });

      await run("node", [bin, "db", "migrate"], { env });
      const ws = await run("node", [bin, "workspace", "create", "--name", "Now", "--json"], { env });
      expect(JSON.parse(ws.stdout)).toMatchObject({ name: "Now" });
    } finally {
      await db.execute(sql.raw(`drop database if exists ${name} with (force)`));
    }
  });
});
