import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";

export type EndpointHealth = { succeeded: number; failed: number; pending: number };

/** Deliveries of the last 24 hours per endpoint, by status: the web app's list at a glance. */
export async function endpointHealth(workspaceId: string, endpointIds: string[]): Promise<Map<string, EndpointHealth>> {
  const out = new Map<string, EndpointHealth>();
  if (endpointIds.length === 0) return out;
  const q = await queryable();
  const { rows } = await q.execute<{ endpoint_id: string; succeeded: number; failed: number; pending: number }>(sql`
    select endpoint_id,
      count(*) filter (where status = 'succeeded')::int as succeeded,
      count(*) filter (where status = 'failed')::int as failed,
      count(*) filter (where status = 'pending')::int as pending
    from webhook_deliveries
    where workspace_id = ${workspaceId} and created_at > now() - interval '24 hours'
      and endpoint_id in (${sql.join(endpointIds.map((id) => sql`${id}`), sql`, `)})
    group by endpoint_id`);
  for (const r of rows) out.set(r.endpoint_id, { succeeded: Number(r.succeeded), failed: Number(r.failed), pending: Number(r.pending) });
  return out;
}
