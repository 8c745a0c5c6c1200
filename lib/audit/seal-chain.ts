import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { queryable, transaction } from "../../db/transaction";
import { auditEntries, auditHeads, type AuditEntryRow } from "../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";
import { scheduleWork } from "../jobs/schedule";
import { scheduleCheckpoints } from "./checkpoints";

/** The work kind that seals the chain (lib/jobs/registry.ts): one item for the whole trail, debounced. */
export const SEAL_KIND = "audit.seal";
/** Entries are sealed this long after they are appended at the latest; a burst is one run. */
export const SEAL_DEBOUNCE_MS = 1_000;
const SEAL_ITEM = { id: "audit-chain", workspaceId: "-" };

/** After the transaction commits: seal soon (many appends in a second coalesce into one run). */
export function scheduleSeal(at: Date): Promise<void> {
  return scheduleWork(SEAL_KIND, [{ ...SEAL_ITEM, dueAt: new Date(at.getTime() + SEAL_DEBOUNCE_MS) }]);
}

/** The one sealing item, due when the oldest unsealed entry was appended, while there is any. */
export const unsealedSource = () =>
  sql`select ${SEAL_ITEM.id}::text as id, ${SEAL_ITEM.workspaceId}::text as workspace_id, null::text as key, min(at) as due_at
      from audit_entries where hash is null having count(*) > 0`;

/**
 * One run of the sealing work: seals what is final, and asks to run again in a second while
 * entries of still-open transactions wait (they are sealed once those commit, in commit order).
 */
export async function sealAuditWork(): Promise<{ sealed: number; retryAt?: Date }> {
  const sealed = await sealAuditChain();
  if (sealed > 0) await scheduleCheckpoints();
  const q = await queryable();
  const [left] = await q.select({ id: auditEntries.id }).from(auditEntries).where(isNull(auditEntries.hash)).limit(1);
  return left ? { sealed, retryAt: new Date(Date.now() + SEAL_DEBOUNCE_MS) } : { sealed };
}

/**
 * Chains appended entries (the Trillian/Tessera split of sequencing from integration).
 * Entries whose writing transaction is older than the snapshot's xmin are final: every
 * transaction that could still add an entry before them has ended. Those are given their
 * workspace's next `seq`, `prev_hash` and `hash`, in insertion order, and the head moves.
 * One sealer at a time (a transaction-scoped advisory lock); others return at once, or with
 * `wait` wait for it to finish and then seal what is left.
 */
export async function sealAuditChain(batch = 2000, opts: { wait?: boolean } = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const sealed = await transaction(async (tx) => {
      const { rows } = await tx.execute<{ got: boolean }>(
        opts.wait
          ? sql`select true as got from (select pg_advisory_xact_lock(hashtext('agentdraft:audit-seal'))) as l`
          : sql`select pg_try_advisory_xact_lock(hashtext('agentdraft:audit-seal')) as got`,
      );
      if (!rows[0]?.got) return -1;
      const pending = await tx
        .select()
        .from(auditEntries)
        .where(and(isNull(auditEntries.hash), sql`${auditEntries.txid} < pg_snapshot_xmin(pg_current_snapshot())`))
        .orderBy(asc(auditEntries.position))
        .limit(batch);
      const byWorkspace = new Map<string, AuditEntryRow[]>();
      for (const e of pending) byWorkspace.set(e.workspaceId, [...(byWorkspace.get(e.workspaceId) ?? []), e]);
      for (const [workspaceId, entries] of [...byWorkspace].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const [head] = await tx
          .insert(auditHeads)
          .values({ workspaceId, seq: 0, hash: GENESIS_HASH })
          .onConflictDoUpdate({ target: auditHeads.workspaceId, set: { seq: sql`${auditHeads.seq}` } })
          .returning();
        let { seq, hash: prev } = head!;
        const chained = entries.map((e) => {
          const entry = { ...e, seq: ++seq };
          const hash = entryHash(prev, entry);
          const link = { id: e.id, seq: entry.seq, prevHash: prev, hash };
          prev = hash;
          return link;
        });
        const values = sql.join(
          chained.map((c) => sql`(${c.id}, ${c.seq}::bigint, ${c.prevHash}, ${c.hash})`),
          sql`, `,
        );
        await tx.execute(sql`
          update audit_entries as a set seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
          from (values ${values}) as v(id, seq, prev_hash, hash) where a.id = v.id`);
        await tx.update(auditHeads).set({ seq, hash: prev }).where(eq(auditHeads.workspaceId, workspaceId));
      }
      return pending.length;
    });
    if (sealed <= 0) return total;
    total += sealed;
    if (sealed < batch) return total;
  }
}

/**
 * Before a read that shows chained entries (the list, the export, verification, a note's answer):
 * seals what is final, waiting for a sealer that is running instead of returning at once, so a
 * reader never misses entries that were final before it asked only because the job was busy.
 */
export const sealBeforeRead = (): Promise<number> => sealAuditChain(2000, { wait: true });
