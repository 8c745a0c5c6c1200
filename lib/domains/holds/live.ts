import { and, eq, gt, sql, type SQL } from "drizzle-orm";
import { holds, type HoldRow } from "../../../db/schema";

/**
 * A hold is live while held and before expires_at by the database clock at this statement
 * (clock_timestamp(), not the transaction's start: a transaction that waited for a lock must
 * not see a hold that expired meanwhile as live).
 */
export const isLive: SQL = and(eq(holds.status, "held"), gt(holds.expiresAt, sql`clock_timestamp()`))!;

/** The status a caller should see: a held hold past its TTL is expired, whether or not the job ran. */
export function effectiveStatus(h: Pick<HoldRow, "status" | "expiresAt">, now = new Date()): HoldRow["status"] {
  return h.status === "held" && h.expiresAt.getTime() <= now.getTime() ? "expired" : h.status;
}

/** Half-open overlap of a hold's [start, end) with a range. */
export const overlaps = (start: Date, end: Date): SQL =>
  sql`tstzrange(${holds.startTime}, ${holds.endTime}, '[)') && tstzrange(${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz, '[)')`;
