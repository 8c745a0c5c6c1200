import { and, desc, eq, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { agents, leases } from "../../../db/schema";
import { effectiveLeaseStatus } from "./serialize";
import { leaseIsLive } from "./get-lease";

/** The web app's Leases page: who holds what now (live leases by resource), and the recent history. */
export async function leaseBoard(workspaceId: string, recentLimit = 50) {
  const q = await queryable();
  const columns = { lease: leases, agentName: agents.name };
  const [live, recent] = await Promise.all([
    q.select(columns).from(leases).leftJoin(agents, eq(agents.id, leases.agentId)).where(and(eq(leases.workspaceId, workspaceId), leaseIsLive)).orderBy(leases.resource),
    q
      .select(columns)
      .from(leases)
      .leftJoin(agents, eq(agents.id, leases.agentId))
      .where(and(eq(leases.workspaceId, workspaceId), sql`not ${leaseIsLive}`))
      .orderBy(desc(leases.id))
      .limit(recentLimit),
  ]);
  const now = new Date();
  const shape = (r: (typeof live)[number]) => ({ ...r.lease, agentName: r.agentName, effectiveStatus: effectiveLeaseStatus(r.lease, now) });
  return { live: live.map(shape), recent: recent.map(shape) };
}
