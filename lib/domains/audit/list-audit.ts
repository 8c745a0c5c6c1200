import { and, asc, desc, eq, gt, gte, isNotNull, like, lt, type SQL } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { auditEntries, type AuditEntryRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { page, type Pagination } from "../../platform/api/pagination";
import type { AuditFilters } from "./schemas";
import { sealBeforeRead } from "../../platform/audit/seal-chain";

function conditions(workspaceId: string, f: AuditFilters): SQL[] {
  // Only chained entries are listed: their seq and hash are final.
  const where: SQL[] = [eq(auditEntries.workspaceId, workspaceId), isNotNull(auditEntries.hash)];
  if (f.resource_id) where.push(eq(auditEntries.resourceId, f.resource_id));
  if (f.resource_type) where.push(eq(auditEntries.resourceType, f.resource_type));
  if (f.agent_id) where.push(eq(auditEntries.agentId, f.agent_id));
  if (f.action) {
    where.push(f.action.endsWith("*") ? like(auditEntries.action, `${f.action.slice(0, -1)}%`) : eq(auditEntries.action, f.action));
  }
  if (f.trace_id) where.push(eq(auditEntries.traceId, f.trace_id));
  if (f.from) where.push(gte(auditEntries.at, new Date(f.from)));
  if (f.to) where.push(lt(auditEntries.at, new Date(f.to)));
  return where;
}

/** Newest first, in chain order; `starting_after` names an entry id. Seals what is pending first. */
export async function listAudit(workspaceId: string, f: AuditFilters & Pagination) {
  await sealBeforeRead(workspaceId);
  const q = await queryable();
  const where = conditions(workspaceId, f);
  if (f.starting_after) {
    const [cursor] = await q
      .select({ seq: auditEntries.seq })
      .from(auditEntries)
      .where(and(eq(auditEntries.workspaceId, workspaceId), eq(auditEntries.id, f.starting_after)));
    if (!cursor) {
      throw new AppError("validation_failed", "starting_after does not name an audit entry of this workspace.", {
        errors: [{ field: "starting_after", message: "unknown audit entry id" }],
      });
    }
    where.push(lt(auditEntries.seq, cursor.seq!));
  }
  const rows = await q.select().from(auditEntries).where(and(...where)).orderBy(desc(auditEntries.seq)).limit(f.limit + 1);
  return page(rows, f.limit);
}

/** Every matching entry, oldest first, fetched in batches as the consumer reads. */
export async function* iterateAudit(workspaceId: string, f: AuditFilters, batch = 500): AsyncGenerator<AuditEntryRow> {
  await sealBeforeRead(workspaceId);
  const q = await queryable();
  let after = 0;
  for (;;) {
    const rows = await q
      .select()
      .from(auditEntries)
      .where(and(...conditions(workspaceId, f), gt(auditEntries.seq, after)))
      .orderBy(asc(auditEntries.seq))
      .limit(batch);
    yield* rows;
    if (rows.length < batch) return;
    after = rows.at(-1)!.seq!;
  }
}
