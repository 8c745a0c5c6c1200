import { and, asc, eq, gt, lte } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { auditEntries, auditHeads } from "../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";
import { sealAuditChain } from "./seal-chain";

export type BrokenLink = {
  seq: number;
  id: string | null;
  reason: "seq_gap" | "prev_hash_mismatch" | "hash_mismatch" | "entries_missing" | "head_mismatch";
  detail: string;
};

export type ChainVerification = {
  valid: boolean;
  entries_checked: number;
  head: { seq: number; hash: string };
  first_broken: BrokenLink | null;
};

const BATCH = 1000;

/**
 * Recomputes a workspace's chain from the first entry up to the head as it stood when the
 * check began (later appends are left for the next check), and names the first broken link.
 */
export async function verifyChain(workspaceId: string): Promise<ChainVerification> {
  await sealAuditChain();
  const q = await queryable();
  const [head] = await q.select().from(auditHeads).where(eq(auditHeads.workspaceId, workspaceId));
  const tip = head ?? { seq: 0, hash: GENESIS_HASH };
  const result = (checked: number, broken: BrokenLink | null): ChainVerification => ({
    valid: broken === null,
    entries_checked: checked,
    head: { seq: tip.seq, hash: tip.hash },
    first_broken: broken,
  });

  let prev = GENESIS_HASH;
  let expected = 1;
  for (;;) {
    const rows = await q
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.workspaceId, workspaceId), gt(auditEntries.seq, expected - 1), lte(auditEntries.seq, tip.seq)))
      .orderBy(asc(auditEntries.seq))
      .limit(BATCH);
    for (const row of rows) {
      const { prevHash, hash, position: _position, txid: _txid, ...fields } = row;
      const checked = expected - 1;
      if (row.seq !== expected) {
        return result(checked, { seq: expected, id: null, reason: "seq_gap", detail: `entry ${expected} is missing (next is ${row.seq})` });
      }
      if (prevHash !== prev || hash === null) {
        return result(checked, { seq: row.seq, id: row.id, reason: "prev_hash_mismatch", detail: "prev_hash does not match the previous entry's hash" });
      }
      if (entryHash(prevHash!, fields) !== hash) {
        return result(checked, { seq: row.seq, id: row.id, reason: "hash_mismatch", detail: "the entry's content does not match its hash: it was altered" });
      }
      prev = hash!;
      expected++;
    }
    if (rows.length < BATCH) break;
  }
  const checked = expected - 1;
  if (checked < tip.seq) {
    return result(checked, { seq: expected, id: null, reason: "entries_missing", detail: `the chain head is at ${tip.seq} but entries stop at ${checked}` });
  }
  if (prev !== tip.hash) {
    return result(checked, { seq: tip.seq, id: null, reason: "head_mismatch", detail: "the chain head's hash does not match the last entry" });
  }
  return result(checked, null);
}
