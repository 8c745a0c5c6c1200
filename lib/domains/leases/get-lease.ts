import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { leaseResources, leases, type LeaseRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import { page, type Pagination } from "../../platform/api/pagination";
import { serializeLease } from "./serialize";

/** Who reads: a workspace, and for an agent-bound key its agent (another agent's leases are 404 to it). */
export type LeaseViewer = { workspaceId: string; agentId: string | null };

/** A lease is live while active and before expires_at by the database clock at this statement. */
export const leaseIsLive: SQL = sql`(${leases.status} = 'active' and ${leases.expiresAt} > clock_timestamp())`;

export async function getLease(viewer: LeaseViewer, id: string) {
  const q = await queryable();
  const [row] = await q.select().from(leases).where(and(eq(leases.id, id), eq(leases.workspaceId, viewer.workspaceId)));
  if (!row || (viewer.agentId && row.agentId !== viewer.agentId)) throw notFound("lease", id);
  return serializeLease(row);
}

/** Newest first. `status=active` means live now; `status=expired` includes active rows past their TTL. */
export async function listLeases(viewer: LeaseViewer, f: Pagination & { resource?: string; status?: LeaseRow["status"] }) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(leases.workspaceId, viewer.workspaceId)];
  if (viewer.agentId) where.push(eq(leases.agentId, viewer.agentId));
  if (f.resource) where.push(eq(leases.resource, f.resource));
  if (f.status === "active") where.push(leaseIsLive);
  else if (f.status === "expired") where.push(sql`(${leases.status} = 'expired' or (${leases.status} = 'active' and ${leases.expiresAt} <= clock_timestamp()))`);
  else if (f.status) where.push(eq(leases.status, f.status));
  if (f.starting_after) where.push(lt(leases.id, f.starting_after));
  const rows = await q.select().from(leases).where(and(...where)).orderBy(desc(leases.id)).limit(f.limit + 1);
  const { items, hasMore } = page(rows, f.limit);
  const now = new Date();
  return { items: items.map((l) => serializeLease(l, now)), hasMore };
}

/**
 * Whether a fencing token is still the newest for its resource and its lease live (SPEC §12),
 * in one read: a downstream system refuses a write carrying anything else. Names no agent.
 */
export async function verifyFencingToken(workspaceId: string, input: { resource: string; fencing_token: number }) {
  const q = await queryable();
  const [row] = await q
    .select({
      newest: leaseResources.lastFencingToken,
      live: sql<boolean>`exists (select 1 from ${leases} where ${leases.workspaceId} = ${workspaceId} and ${leases.resource} = ${input.resource}
        and ${leases.fencingToken} = ${input.fencing_token} and ${leaseIsLive})`,
    })
    .from(leaseResources)
    .where(and(eq(leaseResources.workspaceId, workspaceId), eq(leaseResources.resource, input.resource)));
  const newest = Number(row?.newest ?? 0);
  const live = Boolean(row?.live);
  return {
    object: "lease_verification" as const,
    resource: input.resource,
    fencing_token: input.fencing_token,
    newest_fencing_token: newest,
    live,
    valid: live && newest === input.fencing_token,
  };
}
