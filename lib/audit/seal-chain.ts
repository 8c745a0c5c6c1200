import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { auditEntries, auditHeads, type AuditEntryRow } from "../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";

/**
 * Chains appended entries (the Trillian/Tessera split of sequencing from integration).
 * Entries whose writing transaction is older than the snapshot's xmin are final: every
 * transaction that could still add an entry before them has ended. Those are given their
 * workspace's next `seq`, `prev_hash` and `hash`, in insertion order, and the head moves.
 * One sealer at a time (a transaction-scoped advisory lock); others return at once.
 */
export async function sealAuditChain(batch = 2000): Promise<number> {
  let total = 0;
  for (;;) {
    const sealed = await transaction(async (tx) => {
      const { rows } = await tx.execute<{ got: boolean }>(sql`select pg_try_advisory_xact_lock(hashtext('agentdraft:audit-seal')) as got`);
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
