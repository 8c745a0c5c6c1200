import { and, desc, eq, getTableColumns, lt, sql, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { holds, type HoldRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import { page, type Pagination } from "../../platform/api/pagination";
import { serializeHold } from "./serialize";
import { isLive } from "./live";

/** Who reads: a workspace, and for an agent-bound key its agent (another agent's holds are 404 to it). */
export type HoldViewer = { workspaceId: string; agentId: string | null };

/** A hold's columns and the ids of the events its commit created, in one select. */
const withEventIds = {
  ...getTableColumns(holds),
  eventIds: sql<string[]>`(select coalesce(array_agg(e.id order by e.id), '{}') from calendar_events e where e.hold_id = ${holds.id})`,
};

export async function getHold(viewer: HoldViewer, id: string) {
  const q = await queryable();
  const [row] = await q.select(withEventIds).from(holds).where(and(eq(holds.id, id), eq(holds.workspaceId, viewer.workspaceId)));
  if (!row || (viewer.agentId && row.agentId !== viewer.agentId)) throw notFound("hold", id);
  return serializeHold(row, row.eventIds);
}

/**
 * Newest first. `status=held` means live now; `status=expired` includes held rows past their TTL.
 * An agent-bound viewer lists only its own agent's holds (availability shows the others' busy time).
 */
export async function listHolds(viewer: HoldViewer, f: Pagination & { calendar_id?: string; status?: HoldRow["status"] }) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(holds.workspaceId, viewer.workspaceId)];
  if (f.calendar_id) where.push(sql`${holds.calendarIds} @> array[${f.calendar_id}]::text[]`);
  if (viewer.agentId) where.push(eq(holds.agentId, viewer.agentId));
  if (f.status === "held") where.push(isLive);
  else if (f.status === "expired") where.push(sql`(${holds.status} = 'expired' or (${holds.status} = 'held' and ${holds.expiresAt} <= clock_timestamp()))`);
  else if (f.status) where.push(eq(holds.status, f.status));
  if (f.starting_after) where.push(lt(holds.id, f.starting_after));
  const rows = await q.select(withEventIds).from(holds).where(and(...where)).orderBy(desc(holds.id)).limit(f.limit + 1);
  const { items, hasMore } = page(rows, f.limit);
  const now = new Date();
  return { items: items.map((h) => serializeHold(h, h.eventIds, now)), hasMore };
}
