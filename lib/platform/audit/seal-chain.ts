import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { jsonValue } from "../../../db/row-json";
import { auditEntries, type AuditEntryRow } from "../../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";
import { scheduleWork } from "../jobs/schedule";
import { scheduleCheckpoints } from "./checkpoints";

/** The work kind that seals a workspace's chain (lib/composition/job-kinds.ts): one item per workspace, debounced. */
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

type Head = { seq: number; hash: string };

/**
 * One sealing attempt for a workspace, in two statements and no lock held between them (never
 * across a round trip): (1) read its head and its committed unsealed entries, in insertion order,
 * in one snapshot (an open transaction's entries are invisible, an aborted one's never visible);
 * hash them; (2) in one statement, move the head from exactly what was read (compare-and-set on
 * the workspace's `audit_heads` row, created at genesis if need be) and chain the entries, or
 * change nothing when another sealer of this workspace moved the head first. A workspace's
 * sealers thus take turns on its head row only: no other workspace ever waits on them.
 * Returns how many were chained, or null when another sealer won.
 */
async function sealOnce(workspaceId: string, batch: number): Promise<number | null> {
  const q = await queryable();
  const rows = await q
    .select({ entry: auditEntries, head: sql<Head | null>`(select json_build_object('seq', h.seq, 'hash', h.hash) from audit_heads h where h.workspace_id = ${workspaceId})` })
    .from(auditEntries)
    .where(and(eq(auditEntries.workspaceId, workspaceId), isNull(auditEntries.hash)))
    .orderBy(asc(auditEntries.position))
    .limit(batch);
  if (rows.length === 0) return 0;
  const read = jsonValue<Head | null>(rows[0]!.head);
  let { seq, hash: prev } = read ? { seq: Number(read.seq), hash: read.hash } : { seq: 0, hash: GENESIS_HASH };
  const chained = rows.map(({ entry: e }: { entry: AuditEntryRow }) => {
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
  const moved = read
    ? sql`update audit_heads set seq = ${seq}, hash = ${prev} where workspace_id = ${workspaceId} and seq = ${Number(read.seq)} and hash = ${read.hash} returning 1`
    : sql`insert into audit_heads (workspace_id, seq, hash) values (${workspaceId}, ${seq}, ${prev}) on conflict do nothing returning 1`;
  const { rows: out } = await q.execute<{ won: number; n: number }>(sql`
    with h as (${moved}),
    sealed as (
      update audit_entries as a set seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
      from (values ${values}) as v(id, seq, prev_hash, hash)
      where a.id = v.id and a.workspace_id = ${workspaceId} and a.hash is null and exists (select 1 from h)
      returning a.id)
    select (select count(*) from h)::int as won, (select count(*) from sealed)::int as n`);
  if (Number(out[0]!.won) === 0) return null;
  // Cannot happen (the head had not moved, so no entry read was sealed since): said loudly if it does.
  if (Number(out[0]!.n) !== chained.length) console.error(`[audit] sealing ${workspaceId}: moved the head over ${chained.length} entries but chained ${out[0]!.n}`);
  return chained.length;
}

/**
 * Chains one workspace's committed entries (the Trillian/Tessera split of sequencing from
 * integration): they get the workspace's next `seq`, `prev_hash` and `hash`, in insertion order,
 * and the head moves. Entries of a transaction that commits later are chained by a later sealer,
 * after these: the chain is in the order entries became final, and no open transaction, in this
 * workspace or any other, holds back what has committed. Returns how many were chained, or -1
 * when another sealer of this workspace got there first (without `wait`; with it, tries again
 * until what had committed when it was called is chained).
 */
export async function sealWorkspaceChain(workspaceId: string, opts: { wait?: boolean; batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 2000;
  let total = 0;
  for (;;) {
    const sealed = await sealOnce(workspaceId, batch);
    if (sealed === null) {
      if (!opts.wait) return total > 0 ? total : -1;
      continue; // another sealer moved the head: read again (what it left, it left for us)
    }
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
 * trace, a note's answer): seals what that workspace has committed, trying again when another
 * sealer of it got there first, so a reader never misses entries that were final before it asked.
 * Only this workspace's sealers are waited for: another tenant's flood is not.
 */
export const sealBeforeRead = (workspaceId: string): Promise<number> => sealWorkspaceChain(workspaceId, { wait: true });
