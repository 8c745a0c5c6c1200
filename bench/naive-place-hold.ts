import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../db/client";
import { holds } from "../db/schema";
import { newId } from "../lib/platform/ids";
import { isLive, overlaps } from "../lib/domains/holds/live";

/**
 * THE WRONG WAY, kept only as the benchmark's baseline: check for overlaps, then insert,
 * with no lock between. Under concurrency two agents both see the slot free and both book
 * it. `npm run bench:holds` counts the double bookings this makes. Kept out of lib/ so nothing but this benchmark can call it.
 */
export async function naivePlaceHold(workspaceId: string, calendarId: string, start: Date, end: Date, priority: number): Promise<boolean> {
  const db = await getDb();
  const clash = await db
    .select({ id: holds.id })
    .from(holds)
    .where(and(eq(holds.workspaceId, workspaceId), sql`${holds.calendarIds} @> array[${calendarId}]::text[]`, isLive, overlaps(start, end)))
    .limit(1);
  if (clash.length) return false;
  await db.insert(holds).values({
    id: newId("hold"),
    workspaceId,
    calendarIds: [calendarId],
    startTime: start,
    endTime: end,
    priority,
    ttlSeconds: 300,
    status: "held",
    expiresAt: sql`clock_timestamp() + interval '300 seconds'`,
    metadata: {},
  });
  return true;
}
