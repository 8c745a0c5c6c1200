import { and, asc, eq, gt, lte } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { auditEntries, auditHeads } from "../../../db/schema";
import { entryHash, GENESIS_HASH } from "./chain";
import { sealBeforeRead } from "./seal-chain";
import { latestCheckpoint, verifyCheckpoint } from "./checkpoints";

export type BrokenLink = {
  seq: number;
  id: string | null;
  reason:
    | "seq_gap"
    | "prev_hash_mismatch"
    | "hash_mismatch"
    | "entries_missing"
    | "head_mismatch"
    | "checkpoint_invalid"
    | "checkpoint_ahead"
    | "checkpoint_mismatch";
  detail: string;
};

export type ChainVerification = {
  valid: boolean;
  entries_checked: number;
  head: { seq: number; hash: string };
  first_broken: BrokenLink | null;
  /** The signed checkpoint the chain was checked against: the latest in the database, or one a witness gave. */
  checkpoint: { seq: number; hash: string; signed_at: string; source: "database" | "witness" } | null;
};

const BATCH = 1000;

/**
 * Recomputes a workspace's chain from the first entry up to the head as it stood when the
 * check began (later appends are left for the next check), and names the first broken link.
 * Then checks it against a signed checkpoint (a witness's, else the latest in the database):
 * the chain must reach the checkpoint's entry and that entry must have the signed hash, so a
 * rewrite of the whole chain, or a cut of its newest entries, is caught.
 */
export async function verifyChain(workspaceId: string, opts: { checkpoint?: string } = {}): Promise<ChainVerification> {
  await sealBeforeRead(workspaceId);
  const q = await queryable();
  const [head] = await q.select().from(auditHeads).where(eq(auditHeads.workspaceId, workspaceId));
  const tip = head ?? { seq: 0, hash: GENESIS_HASH };
  let anchor: ChainVerification["checkpoint"] = null;
  let anchorError: string | null = null;
  const given = opts.checkpoint ?? (await latestCheckpoint(workspaceId))?.jws;
  if (given) {
    try {
      const signed = await verifyCheckpoint(given, workspaceId);
      anchor = { seq: signed.seq, hash: signed.hash, signed_at: signed.signed_at, source: opts.checkpoint ? "witness" : "database" };
    } catch (err) {
      anchorError = (err as Error).message;
    }
  }
  const result = (checked: number, broken: BrokenLink | null): ChainVerification => ({
    valid: broken === null,
    entries_checked: checked,
    head: { seq: tip.seq, hash: tip.hash },
    first_broken: broken,
    checkpoint: anchor,
  });
  if (anchorError) {
    return result(0, { seq: 0, id: null, reason: "checkpoint_invalid", detail: `the checkpoint does not verify against this workspace's keys: ${anchorError}` });
  }
  let anchoredHash: string | null = null;

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
      if (anchor && row.seq === anchor.seq) anchoredHash = hash;
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
  if (anchor && anchor.seq > checked) {
    return result(checked, {
      seq: anchor.seq,
      id: null,
      reason: "checkpoint_ahead",
      detail: `a checkpoint signed at ${anchor.signed_at} covers entry ${anchor.seq} but the chain ends at ${checked}: its newest entries were cut`,
    });
  }
  if (anchor && anchoredHash !== anchor.hash) {
    return result(checked, {
      seq: anchor.seq,
      id: null,
      reason: "checkpoint_mismatch",
      detail: `entry ${anchor.seq} does not have the hash signed at ${anchor.signed_at}: the chain was rewritten`,
    });
  }
  return result(checked, null);
}
