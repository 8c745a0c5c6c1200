import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { webhookDeliveries } from "../../../db/schema";
import { page, type Pagination } from "../../platform/api/pagination";
import type { Actor } from "../../platform/actor";
import { findEndpoint } from "./find-endpoint";
import type { DeliveryStatus } from "../../../db/schema/webhook-deliveries";

/** An endpoint's delivery log, newest first. */
export async function listDeliveries(actor: Actor, endpointId: string, p: Pagination & { status?: DeliveryStatus }) {
  const endpoint = await findEndpoint(actor, endpointId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(webhookDeliveries.workspaceId, actor.workspaceId), eq(webhookDeliveries.endpointId, endpoint.id)];
  if (p.status) where.push(eq(webhookDeliveries.status, p.status));
  if (p.starting_after) where.push(lt(webhookDeliveries.id, p.starting_after));
  const rows = await q.select().from(webhookDeliveries).where(and(...where)).orderBy(desc(webhookDeliveries.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}
