import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { outboundMail, type OutboundMailRow } from "../../../db/schema";
import { page } from "../../platform/api/pagination";

/** A workspace's outbound mail, newest first (the mail catcher shows `captured` ones). */
export async function listMail(workspaceId: string, opts: { status?: OutboundMailRow["status"]; limit?: number; startingAfter?: string } = {}) {
  const q = await queryable();
  const limit = opts.limit ?? 50;
  const where: SQL[] = [eq(outboundMail.workspaceId, workspaceId)];
  if (opts.status) where.push(eq(outboundMail.status, opts.status));
  if (opts.startingAfter) where.push(lt(outboundMail.id, opts.startingAfter));
  const rows = await q.select().from(outboundMail).where(and(...where)).orderBy(desc(outboundMail.id)).limit(limit + 1);
  return page(rows, limit);
}
