// @suite pooled moved-clock
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { getDb } from "../../../../db/client";
import { linkedCalendar, withFakeGoogle } from "../../../../test/helpers/google";
import { newKey } from "../../../../test/helpers/fixtures";
import { placeHold } from "../../holds/place-hold";
import { AppError } from "../../../platform/errors";
import { syncLink } from "./sync-calendar";
import { onUtcDay } from "../../../../test/helpers/clock";

const fakeGoogle = withFakeGoogle();

const DAY = onUtcDay(30);
const SLOT = (i: number, m = 0) => DAY(0, i * 30 + m);

describe("imported busy time and concurrent holds", () => {
  it("a hold is never granted over busy time a sync had already written: the sync and placements share the calendar lock", { timeout: 120_000 }, async () => {
    const { workspace, calendar, link, gcal } = await linkedCalendar(fakeGoogle());
    const { row } = await newKey(workspace.id);
    const actor = { type: "key" as const, workspaceId: workspace.id, keyId: row.id, agentId: null };
    await syncLink(link.id);

    const outcomes = { granted: 0, external: 0, other: 0 };
    let placing = true;
    const client = async (c: number) => {
      for (let i = 0; placing && i < 200; i++) {
        const slot = (c * 7 + i * 13) % 40;
        try {
          await placeHold(actor, { calendar_ids: [calendar.id], start_time: SLOT(slot), end_time: SLOT(slot + 1), priority: (c * 11 + i) % 101, hold_ttl_seconds: 3600, metadata: {} });
          outcomes.granted++;
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== "hold_conflict") throw err;
          if ((err.extra.conflicts as { type: string }[]).some((x) => x.type === "external_busy")) outcomes.external++;
          else outcomes.other++;
        }
      }
    };
    const syncer = async () => {
      // Google gains busy time over the slots while the clients place holds; each sync writes it under the lock.
      for (let round = 0; round < 10; round++) {
        for (let k = 0; k < 4; k++) {
          const slot = (round * 4 + k) % 40;
          fakeGoogle().addEvent(gcal, { start: SLOT(slot, 10), end: SLOT(slot, 20) });
        }
        await syncLink(link.id);
      }
      placing = false;
    };
    await Promise.all([syncer(), ...Array.from({ length: 12 }, (_, c) => client(c))]);

    // Every hold overlapping imported busy time must have been inserted before that busy time was
    // written (a hold's insert instant is expires_at - ttl, both by the database clock).
    const db = await getDb();
    const { rows } = await db.execute<{ hold_id: string; busy_id: string }>(sql`
      select h.id as hold_id, b.id as busy_id
        from holds h join external_busy_intervals b
          on b.calendar_id = any(h.calendar_ids)
         and tstzrange(h.start_time, h.end_time, '[)') && b.span
       where h.workspace_id = ${workspace.id}
         and h.expires_at - make_interval(secs => h.ttl_seconds) >= b.imported_at`);
    expect(rows).toEqual([]);
    const [{ busy }] = (await db.execute<{ busy: number }>(sql`select count(*)::int as busy from external_busy_intervals where calendar_id = ${calendar.id}`)).rows as [{ busy: number }];
    expect(busy).toBe(40);
    expect(outcomes.granted).toBeGreaterThan(0);
    expect(outcomes.external + outcomes.other).toBeGreaterThan(0);
    console.log(`race: ${JSON.stringify(outcomes)}`);
  });
});

