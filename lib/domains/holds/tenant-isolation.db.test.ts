// @suite moved-clock
import { describe, expect, it } from "vitest";
import { sql, type SQL } from "drizzle-orm";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { transaction } from "../../../db/transaction";
import { newId } from "../../platform/ids";
import { utcDate } from "../../../test/helpers/clock";

// A day a month ahead (YYYY-MM-DD): the future, whatever the day the test runs.
const DAY = utcDate(30);

/**
 * Runs `statement` in a transaction of its own and counts the rows it read from each table
 * (sequential reads plus heap fetches by index, from pg_stat_xact_user_tables).
 */
async function readsDuring<T extends string>(statement: SQL, tables: T[]): Promise<{ out: Record<string, unknown>; reads: Record<T, number> }> {
  const readsSoFar = async (tx: Parameters<Parameters<typeof transaction>[0]>[0]) => {
    const { rows } = await tx.execute<{ relname: string; n: string }>(
      sql`select relname, seq_tup_read + coalesce(idx_tup_fetch, 0) as n from pg_stat_xact_user_tables where relname = any(${sql.param(tables)}::text[])`,
    );
    return Object.fromEntries(tables.map((t) => [t, Number(rows.find((r) => r.relname === t)?.n ?? 0)])) as Record<T, number>;
  };
  return transaction(async (tx) => {
    const before = await readsSoFar(tx);
    const { rows } = await tx.execute<{ out: Record<string, unknown> }>(statement);
    const after = await readsSoFar(tx);
    return { out: rows[0]!.out, reads: Object.fromEntries(tables.map((t) => [t, after[t] - before[t]])) as Record<T, number> };
  });
}

async function calendarsOf(workspaceId: string, count: number, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `cal_${prefix}${String(i).padStart(22, "0")}`.slice(0, 30));
  await transaction((tx) => tx.execute(sql`insert into calendars (id, workspace_id, name) select id, ${workspaceId}, id from unnest(${sql.param(ids)}::text[]) as id`));
  return ids;
}

describe("the engine reads only the calendars a placement names (SPEC §11, one tenant affects only itself)", () => {
  it("places a hold without visiting another tenant's events or holds at that time, or the workspace's other calendars", async () => {
    const { workspace: busy } = await newWorkspace();
    const busyCalendars = await calendarsOf(busy.id, 300, "b");
    // Another tenant's 2 pm, taken on each of its 300 calendars.
    await transaction((tx) =>
      tx.execute(sql`insert into calendar_events (id, workspace_id, calendar_id, start_time, end_time, status, metadata)
        select 'evt_' || substr(md5(c), 1, 26), ${busy.id}, c, ${`${DAY}T14:00:00Z`}::timestamptz, ${`${DAY}T15:00:00Z`}::timestamptz, 'confirmed', '{}'::jsonb
        from unnest(${sql.param(busyCalendars)}::text[]) as c`),
    );
    // ...and 300 live holds there at that time.
    await transaction((tx) =>
      tx.execute(sql`insert into holds (id, workspace_id, calendar_ids, start_time, end_time, priority, ttl_seconds, status, expires_at, metadata)
        select 'hold_' || substr(md5(c), 1, 26), ${busy.id}, array[c], ${`${DAY}T14:00:00Z`}::timestamptz, ${`${DAY}T15:00:00Z`}::timestamptz, 50, 600, 'held', now() + interval '10 minutes', '{}'::jsonb
        from unnest(${sql.param(busyCalendars)}::text[]) as c`),
    );
    const { workspace } = await newWorkspace();
    const [mine] = await calendarsOf(workspace.id, 300, "m");
    const actor = JSON.stringify({ workspace_id: workspace.id, type: "key", id: "key_test", agent_id: null, trace_id: null });

    const { out, reads } = await readsDuring(
      sql`select agentdraft_place_hold(${actor}::jsonb, ${newId("hold")}, ${sql.param([mine])}::text[],
        ${`${DAY}T14:00:00Z`}::timestamptz, ${`${DAY}T15:00:00Z`}::timestamptz, 50, 60, '{}'::jsonb) as out`,
      ["calendar_events", "calendars", "holds"],
    );

    expect(out).toHaveProperty("hold");
    // Two passes (unlocked, then locked) read the named calendar a few times; before, each pass
    // read all 300 of the other tenant's events and live holds, and all 300 of this workspace's calendars.
    expect(reads.calendar_events).toBe(0);
    expect(reads.holds).toBe(0);
    expect(reads.calendars).toBeLessThanOrEqual(4);

    // Committing locks the hold's calendar alone, and its event's exclusion check sees only that calendar.
    const holdId = (out.hold as { id: string }).id;
    const commit = await readsDuring(sql`select agentdraft_change_hold(${actor}::jsonb, ${holdId}, 'commit', null, null, null) as out`, ["calendar_events", "calendars"]);
    expect(commit.out).toMatchObject({ changed: true, hold: { status: "committed" } });
    expect(commit.reads.calendar_events).toBeLessThanOrEqual(1); // the exclusion check meets the new event itself
    expect(commit.reads.calendars).toBeLessThanOrEqual(2);
  });
});
