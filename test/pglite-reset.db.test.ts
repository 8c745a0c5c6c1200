import { describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb, openPglite } from "../db/client";
import { newWorkspace } from "./helpers/fixtures";
import { resetToSnapshot } from "./pglite-reset";

// A worker's PGlite is put back to the run's snapshot between test files instead of reopened
// (test/setup-db.ts): each file must still start on a database equal to the snapshot.
describe.runIf(process.env.AGENTDRAFT_TEST_DB === "pglite")("resetting the embedded database to the snapshot", () => {
  const count = async (q: string) => Number(((await (await getDb()).execute(sql.raw(q))).rows[0] as { n: number }).n);

  it("empties every table, keeps the snapshot's own rows, and puts back sequences, settings, locks and listeners", async () => {
    const db = await getDb();
    const pg = (await openPglite())!;
    const functionVersions = await count("select count(*)::int as n from agentdraft_function_versions");
    const sequence = await count("select nextval('agentdraft_id_seq')::int as n");
    await newWorkspace();
    await newWorkspace();
    await db.execute(sql`select nextval('agentdraft_id_seq')`);
    await pg.exec("set timezone = 'Asia/Tokyo'; select pg_advisory_lock(4242); listen some_channel");
    expect(await count("select count(*)::int as n from workspaces")).toBeGreaterThanOrEqual(2);
    expect(await count("select count(*)::int as n from audit_entries")).toBeGreaterThan(0);

    expect(await resetToSnapshot(pg, inject("pgliteSnapshotShape"))).toBe(true);
    expect(await count("select count(*)::int as n from workspaces")).toBe(0);
    // The audit trail refuses TRUNCATE from anyone else (append-only triggers): the reset bypasses them.
    expect(await count("select count(*)::int as n from audit_entries")).toBe(0);
    expect(await count("select count(*)::int as n from agentdraft_function_versions")).toBe(functionVersions);
    expect(await count("select nextval('agentdraft_id_seq')::int as n")).toBe(sequence);
    expect((await pg.query<{ tz: string }>("show timezone")).rows[0]!.tz).not.toBe("Asia/Tokyo");
    expect(await count("select count(*)::int as n from pg_locks where locktype = 'advisory'")).toBe(0);
    expect(await count("select count(*)::int as n from pg_listening_channels()")).toBe(0);
    // And the app works on it as on a new one.
    await newWorkspace();
  });

  it("refuses (so the file gets a new PGlite) when the schema or the snapshot's own rows changed", async () => {
    const pg = (await openPglite())!;
    const shape = inject("pgliteSnapshotShape");
    await pg.exec("create function reset_probe() returns int language sql as 'select 1'");
    expect(await resetToSnapshot(pg, shape)).toBe(false);
    await pg.exec("drop function reset_probe()");
    expect(await resetToSnapshot(pg, shape)).toBe(true);

    await pg.exec("alter table workspaces add column reset_probe int");
    expect(await resetToSnapshot(pg, shape)).toBe(false);
    await pg.exec("alter table workspaces drop column reset_probe");
    expect(await resetToSnapshot(pg, shape)).toBe(true);

    const [row] = (await pg.query<{ name: string }>("select name from agentdraft_function_versions limit 1")).rows;
    await pg.query("update agentdraft_function_versions set name = name || '-changed' where name = $1", [row!.name]);
    expect(await resetToSnapshot(pg, shape)).toBe(false);
    await pg.query("update agentdraft_function_versions set name = $1 where name = $2", [row!.name, `${row!.name}-changed`]);
    expect(await resetToSnapshot(pg, shape)).toBe(true);
  });
});
