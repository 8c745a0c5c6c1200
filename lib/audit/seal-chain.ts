import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { queryable, transaction } from "../../db/transaction";
import type { Transaction } from "../../db/client";
import { auditEntries, auditHeads, type AuditEntryRow } from "../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";
import { scheduleWork } from "../jobs/schedule";
import { scheduleCheckpoints } from "./checkpoints";

/** The work kind that seals a workspace's chain (lib/jobs/registry.ts): one item per workspace, debounced. */
export const SEAL_KIND = "audit.seal";
/** Entries are sealed this long after they are appended at the latest; a burst is one run. */
export const SEAL_DEBOUNCE_MS = 1_000;
const sealItemId = (workspaceId: string) => `audit-chain:${workspaceId}`;

/** After the transaction commits: seal this workspace's chain soon (many appends in a second coalesce into one run). */
export function scheduleSeal(workspaceId: string, at: Date): Promise<void> {
  return scheduleWork(SEAL_KIND, [{ id: sealItemId(workspaceId), workspaceId, dueAt: new Date(at.getTime() + SEAL_DEBOUNCE_MS) }]);
}

/** One sealing item per workspace with unsealed entries, due when its oldest one was appended. */
export const unsealedSource = () =>
  sql`select 'audit-chain:' || workspace_id as id, workspace_id, null::text as key, min(at) as due_at
      from audit_entries where hash is null group by workspace_id`;

/**
 * One run of a workspace's sealing work: seals what has committed, and asks to run again in a
 * second while committed entries are left (appended after this run's snapshot, or a busy sealer).
 */
export async function sealAuditWork(workspaceId: string): Promise<{ sealed: number; retryAt?: Date }> {
  const sealed = await sealWorkspaceChain(workspaceId);
  if (sealed > 0) await scheduleCheckpoints();
  const q = await queryable();
  const [left] = await q
    .select({ id: auditEntries.id })
    .from(auditEntries)
    .where(and(eq(auditEntries.workspaceId, workspaceId), isNull(auditEntries.hash)))
    .limit(1);
  return left ? { sealed: Math.max(sealed, 0), retryAt: new Date(Date.now() + SEAL_DEBOUNCE_MS) } : { sealed: Math.max(sealed, 0) };
}

/**
 * Locks a workspace's chain head (its `audit_heads` row, created at genesis if need be): the
 * workspace's sealers run one at a time, and no other workspace's sealer or reader waits on it.
 * With `wait`, waits for a sealer of this workspace that is running; else returns null at once.
 */
async function lockHead(tx: Transaction, workspaceId: string, wait: boolean): Promise<{ seq: number; hash: string } | null> {
  if (wait) {
    const [head] = await tx
      .insert(auditHeads)
      .values({ workspaceId, seq: 0, hash: GENESIS_HASH })
      .onConflictDoUpdate({ target: auditHeads.workspaceId, set: { seq: sql`${auditHeads.seq}` } })
      .returning();
    return head!;
  }
  const { rows } = await tx.execute<{ seq: string; hash: string }>(
    sql`select seq::text, hash from audit_heads where workspace_id = ${workspaceId} for update skip locked`,
  );
  if (rows[0]) return { seq: Number(rows[0].seq), hash: rows[0].hash };
  const [created] = await tx.insert(auditHeads).values({ workspaceId, seq: 0, hash: GENESIS_HASH }).onConflictDoNothing().returning();
  return created ?? null; // there is a head, and another sealer holds it
}

/**
 * Chains one workspace's committed entries (the Trillian/Tessera split of sequencing from
 * integration). Under the workspace's head lock, a fresh statement sees exactly the entries
 * whose transactions have committed (an open transaction's are invisible, an aborted one's never
 * visible): those get the workspace's next `seq`, `prev_hash` and `hash`, in insertion order, and
 * the head moves. Entries of a transaction that commits later are chained by a later sealer,
 * after these: the chain is in the order entries became final, and no open transaction, in this
 * workspace or any other, holds back what has committed. Returns how many were chained, or -1
 * when another sealer of this workspace was running (without `wait`).
 */
export async function sealWorkspaceChain(workspaceId: string, opts: { wait?: boolean; batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 2000;
  let total = 0;
  for (;;) {
    const sealed = await transaction(async (tx) => {
      const head = await lockHead(tx, workspaceId, opts.wait ?? false);
      if (!head) return -1;
      // A statement after the lock: its snapshot sees the previous sealer's work and every entry committed by now.
      const pending = await tx
        .select()
        .from(auditEntries)
        .where(and(eq(auditEntries.workspaceId, workspaceId), isNull(auditEntries.hash)))
        .orderBy(asc(auditEntries.position))
        .limit(batch);
      if (pending.length === 0) return 0;
      let { seq, hash: prev } = head;
      const chained = pending.map((e: AuditEntryRow) => {
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
      // The entries and the head in one statement.
      await tx.execute(sql`
        with sealed as (
          update audit_entries as a set seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
          from (values ${values}) as v(id, seq, prev_hash, hash) where a.id = v.id and a.workspace_id = ${workspaceId}
          returning a.id)
        update audit_heads set seq = ${seq}, hash = ${prev}
        where workspace_id = ${workspaceId}`);
      return pending.length;
    });
    if (sealed < 0) return total > 0 ? total : -1;
    total += sealed;
    if (sealed < batch) return total;
  }
}

/**
 * Seals every workspace that has committed unsealed entries, one workspace at a time, skipping a
 * workspace whose sealer is running (tests, the CLI, and a sweep; the job seals per workspace).
 */
export async function sealAuditChain(batch = 2000): Promise<number> {
  const q = await queryable();
  const { rows } = await q.execute<{ workspace_id: string }>(sql`select distinct workspace_id from audit_entries where hash is null`);
  let total = 0;
  for (const { workspace_id } of rows) total += Math.max(await sealWorkspaceChain(workspace_id, { batch }), 0);
  return total;
}

/**
 * Before a read that shows a workspace's chained entries (the list, the export, verification, a
 * trace, a note's answer): seals what that workspace has committed, waiting for its running
 * sealer instead of returning at once, so a reader never misses entries that were final before it
 * asked. Only this workspace's sealers are waited for: another tenant's flood is not.
 */
export const sealBeforeRead = (workspaceId: string): Promise<number> => sealWorkspaceChain(workspaceId, { wait: true });
