import { and, asc, count, desc, eq, isNotNull, isNull, lt, type SQL } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { calendarOrphans, calendars, type CalendarOrphanRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { notFound } from "../../platform/errors";
import { page } from "../../platform/api/pagination";
import { orphanNote, type ListOrphansQuery } from "./orphan-schemas";

/** At most this many open orphans are shown on one calendar's page (the API pages through all of them). */
export const ORPHANS_SHOWN = 50;

/**
 * A workspace's orphans (issue #32: provider events tagged as AgentDraft's that AgentDraft does
 * not stand behind), newest first: open ones by default (waiting for a person), optionally of one
 * calendar. Orphans are of the workspace's linked calendars, not of an agent: any key that may
 * read calendars sees them.
 */
export async function listOrphans(workspaceId: string, f: Pick<ListOrphansQuery, "limit" | "starting_after" | "calendar_id"> & { status?: ListOrphansQuery["status"] }) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(calendarOrphans.workspaceId, workspaceId)];
  if (f.calendar_id) where.push(eq(calendarOrphans.calendarId, f.calendar_id));
  const status = f.status ?? "open";
  if (status === "open") where.push(isNull(calendarOrphans.resolvedAt));
  if (status === "resolved") where.push(isNotNull(calendarOrphans.resolvedAt));
  if (f.starting_after) where.push(lt(calendarOrphans.id, f.starting_after));
  const rows = await q
    .select()
    .from(calendarOrphans)
    .where(and(...where))
    .orderBy(desc(calendarOrphans.id))
    .limit(f.limit + 1);
  return page(rows, f.limit);
}

/** How many open orphans each calendar of the workspace has (the overview's lines); calendars with none are left out. */
export async function countOpenOrphans(workspaceId: string): Promise<{ id: string; name: string; count: number }[]> {
  const q = await queryable();
  const rows = await q
    .select({ id: calendars.id, name: calendars.name, count: count() })
    .from(calendarOrphans)
    .innerJoin(calendars, eq(calendars.id, calendarOrphans.calendarId))
    .where(and(eq(calendarOrphans.workspaceId, workspaceId), isNull(calendarOrphans.resolvedAt), eq(calendars.workspaceId, workspaceId)))
    .groupBy(calendars.id, calendars.name)
    .orderBy(asc(calendars.name), asc(calendars.id));
  return rows.map((r) => ({ id: r.id, name: r.name, count: Number(r.count) }));
}

/**
 * A member dismisses an open orphan: they have seen it and deal with it in the provider's
 * calendar themselves (AgentDraft deletes nothing it cannot prove is its own). Audited
 * (`calendar.orphan_dismissed`); dismissing one already resolved changes nothing. The orphan
 * stays recorded, so the same provider event is not reported again.
 */
export async function dismissOrphan(actor: Actor & { type: "member" }, orphanId: string, note?: string | null): Promise<{ orphan: CalendarOrphanRow; changed: boolean }> {
  const text = note ? orphanNote.parse(note) || null : null;
  return transaction(async (tx) => {
    const [row] = await tx
      .update(calendarOrphans)
      .set({ resolvedAt: new Date(), resolvedBy: actor.memberId, resolutionNote: text })
      .where(and(eq(calendarOrphans.workspaceId, actor.workspaceId), eq(calendarOrphans.id, orphanId), isNull(calendarOrphans.resolvedAt)))
      .returning();
    if (!row) {
      const [existing] = await tx.select().from(calendarOrphans).where(and(eq(calendarOrphans.workspaceId, actor.workspaceId), eq(calendarOrphans.id, orphanId)));
      if (!existing) throw notFound("orphan", orphanId);
      return { orphan: existing, changed: false };
    }
    await appendAudit(tx, [
      {
        actor,
        action: "calendar.orphan_dismissed",
        resource: { type: "calendar", id: row.calendarId },
        summary: { orphan_id: row.id, link_id: row.linkId, provider: row.provider, provider_event_id: row.providerEventId, tagged_event_id: row.taggedEventId, reason: row.reason, note: text },
      },
    ]);
    return { orphan: row, changed: true };
  });
}

export const serializeOrphan = (o: CalendarOrphanRow) => ({
  id: o.id,
  object: "calendar_orphan" as const,
  calendar_id: o.calendarId,
  link_id: o.linkId,
  provider: o.provider,
  provider_event_id: o.providerEventId,
  tagged_event_id: o.taggedEventId,
  start_time: o.providerStart?.toISOString() ?? null,
  end_time: o.providerEnd?.toISOString() ?? null,
  action: o.action,
  reason: o.reason,
  found_at: o.createdAt.toISOString(),
  status: o.resolvedAt ? ("resolved" as const) : ("open" as const),
  resolved_at: o.resolvedAt?.toISOString() ?? null,
  resolved_by: o.resolvedBy,
  resolution_note: o.resolutionNote,
});
