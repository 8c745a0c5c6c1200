import { and, asc, eq, inArray } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { calendars, type CalendarRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";

/**
 * Locks the calendars' rows (FOR UPDATE) in sorted id order, so transactions touching several
 * calendars always queue in the same order and cannot deadlock. Every hold transition that can
 * make time busy runs under these locks; the exclusion constraint is the safety net beneath.
 * Calendars of other workspaces are not found.
 */
export async function lockCalendars(tx: Transaction, workspaceId: string, ids: string[]): Promise<CalendarRow[]> {
  const sorted = [...new Set(ids)].sort();
  const rows = await tx
    .select()
    .from(calendars)
    .where(and(eq(calendars.workspaceId, workspaceId), inArray(calendars.id, sorted)))
    .orderBy(asc(calendars.id))
    .for("update");
  if (rows.length !== sorted.length) {
    const found = new Set(rows.map((r) => r.id));
    throw notFound("calendar", sorted.find((id) => !found.has(id))!);
  }
  return rows;
}
