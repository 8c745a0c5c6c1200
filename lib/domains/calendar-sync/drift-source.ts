import { and, eq, isNull, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { googleCalendarLinks } from "../../../db/schema";
import type { GoogleCalendarLinkRow } from "../../../db/schema";
import { scheduleWork } from "../../platform/jobs/schedule";

// The drift check's work kind, as the registry sees it. Kept apart from drift.ts so that listing
// due work never loads the providers.

/** One drift check of one link (issue #32): AgentDraft's exports compared with the provider's events. */
export const DRIFT_KIND = "calendar.drift-check";

/** While a link has committed events ahead, it is checked again this long after its last check. */
export const DRIFT_INTERVAL_SECONDS = 24 * 3600;

/**
 * Links whose drift check is due (`drift_check_at`: set by a full resync, a recovery, and the
 * daily re-check while the link has events ahead; null otherwise, so an idle link has no item),
 * of active connections. Keyed by the link: one check of a link at a time.
 */
export const driftDueSource = () => sql`
  select l.id, l.workspace_id, l.id as key, l.drift_check_at as due_at
  from google_calendar_links l join google_connections c on c.id = l.connection_id
  where l.drift_check_at is not null and c.status = 'active'`;

/** After the transaction commits: run the link's drift check at `dueAt` (now by default). */
export function scheduleDriftCheck(link: Pick<GoogleCalendarLinkRow, "id" | "workspaceId">, dueAt = new Date()): Promise<void> {
  return scheduleWork(DRIFT_KIND, [{ id: link.id, workspaceId: link.workspaceId, key: link.id, dueAt }]);
}

/**
 * Asks for a link's drift check now (a full resync, a recovery after failures): written in the
 * caller's transaction, announced after it commits.
 */
export async function requestDriftCheck(tx: Transaction, link: Pick<GoogleCalendarLinkRow, "id" | "workspaceId">): Promise<void> {
  await tx.update(googleCalendarLinks).set({ driftCheckAt: sql`now()` }).where(eq(googleCalendarLinks.id, link.id));
  await scheduleDriftCheck(link);
}

/**
 * An event was exported to the link: if no check is due, the daily one starts (a day from now).
 * A link with nothing committed ahead has none (its last check scheduled no next one).
 */
export async function armDriftCheck(tx: Transaction, linkId: string | null): Promise<void> {
  if (!linkId) return;
  const [row] = await tx
    .update(googleCalendarLinks)
    .set({ driftCheckAt: sql`now() + make_interval(secs => ${DRIFT_INTERVAL_SECONDS})` })
    .where(and(eq(googleCalendarLinks.id, linkId), isNull(googleCalendarLinks.driftCheckAt)))
    .returning({ id: googleCalendarLinks.id, workspaceId: googleCalendarLinks.workspaceId, driftCheckAt: googleCalendarLinks.driftCheckAt });
  if (row) await scheduleDriftCheck(row, row.driftCheckAt!);
}
