import { eq, inArray } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { googleCalendarLinks, googleConnections } from "../../../db/schema";
import { scheduleWork } from "../jobs/schedule";
import type { WorkItem } from "../jobs/work";

/**
 * The job kinds that carry one export (an event created or removed at a linked calendar) to its
 * provider; lib/domains/calendar-sync runs them. The conflict engine's functions write export rows
 * in the statement that commits a hold or changes an event, the way they write webhook deliveries.
 */
export const EXPORT_KIND = "google.export";
export const MICROSOFT_EXPORT_KIND = "microsoft.export";

/**
 * Announces export rows (after the commit; `tx`: the open transaction that wrote them) as their provider's export kind, keyed by link. The
 * commit's SQL returns rows without their provider: one small lookup by link says it.
 */
export async function scheduleExportWork(items: WorkItem[], tx?: Transaction): Promise<void> {
  if (!items.length) return;
  const linkIds = [...new Set(items.map((i) => i.key).filter((k): k is string => Boolean(k)))];
  const q = tx ?? (await queryable());
  const rows = linkIds.length
    ? await q
        .select({ id: googleCalendarLinks.id, provider: googleConnections.provider })
        .from(googleCalendarLinks)
        .innerJoin(googleConnections, eq(googleConnections.id, googleCalendarLinks.connectionId))
        .where(inArray(googleCalendarLinks.id, linkIds))
    : [];
  const microsoft = new Set(rows.filter((r) => r.provider === "microsoft").map((r) => r.id));
  const isMicrosoft = (i: WorkItem) => Boolean(i.key && microsoft.has(i.key));
  await Promise.all([scheduleWork(EXPORT_KIND, items.filter((i) => !isMicrosoft(i))), scheduleWork(MICROSOFT_EXPORT_KIND, items.filter(isMicrosoft))]);
}
