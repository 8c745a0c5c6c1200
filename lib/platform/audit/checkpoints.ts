import { and, desc, eq, lt, sql } from "drizzle-orm";
import { CompactSign, compactVerify, createLocalJWKSet, importJWK } from "jose";
import { queryable, transaction } from "../../../db/transaction";
import { auditCheckpoints, auditHeads, type AuditCheckpointRow } from "../../../db/schema";
import { newId } from "../ids";
import { page, type Pagination } from "../api/pagination";
import { publicJwks, signingKey } from "./signing-keys";
import { scheduleWork } from "../jobs/schedule";

/** The work kind that signs a workspace's chain head (lib/composition/job-kinds.ts): one item per workspace. */
export const CHECKPOINT_KIND = "audit.checkpoint";
/** A workspace's head is signed at most this often, and at most this long after it moved. */
export const CHECKPOINT_INTERVAL_MS = 5 * 60_000;
export const CHECKPOINT_TYPE = "agentdraft-audit-checkpoint+jws";

/** What a checkpoint signs: the chain head of one workspace at a moment. */
export type CheckpointPayload = { workspace_id: string; seq: number; hash: string; signed_at: string };

/**
 * Workspaces whose head moved past their latest checkpoint: due at once for the first one,
 * else an interval after the last (an idle trail has no items, so costs nothing).
 */
export const checkpointSource = () =>
  sql`select h.workspace_id as id, h.workspace_id, null::text as key,
        coalesce(c.signed_at + make_interval(secs => ${CHECKPOINT_INTERVAL_MS / 1000}), now()) as due_at
      from audit_heads h
      left join lateral (select seq, signed_at from audit_checkpoints where workspace_id = h.workspace_id order by seq desc limit 1) c on true
      where h.seq > 0 and (c.seq is null or h.seq > c.seq)`;

/** After sealing: announce the checkpoint work of the workspaces whose head moved (the engine sets its timers). */
export async function scheduleCheckpoints(): Promise<void> {
  const q = await queryable();
  const { rows } = await q.execute<{ id: string; workspace_id: string; due_at: string | Date }>(checkpointSource());
  scheduleWork(
    CHECKPOINT_KIND,
    rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id, dueAt: new Date(r.due_at) })),
  );
}

/**
 * One run: signs the workspace's current head (Ed25519, the workspace's receipt key) unless
 * the latest checkpoint already covers it. Idempotent: a duplicate run finds nothing to sign.
 */
export async function signCheckpoint(workspaceId: string): Promise<AuditCheckpointRow | null> {
  return transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('agentdraft:audit-checkpoint'), hashtext(${workspaceId}))`);
    const [head] = await tx.select().from(auditHeads).where(eq(auditHeads.workspaceId, workspaceId));
    if (!head || head.seq === 0) return null;
    const [latest] = await tx.select().from(auditCheckpoints).where(eq(auditCheckpoints.workspaceId, workspaceId)).orderBy(desc(auditCheckpoints.seq)).limit(1);
    if (latest && latest.seq >= head.seq) return null;
    const signedAt = new Date();
    const payload: CheckpointPayload = { workspace_id: workspaceId, seq: head.seq, hash: head.hash, signed_at: signedAt.toISOString() };
    const { kid, privateJwk } = await signingKey(tx, workspaceId);
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: "EdDSA", kid, typ: CHECKPOINT_TYPE })
      .sign(await importJWK(privateJwk, "EdDSA"));
    const [row] = await tx.insert(auditCheckpoints).values({ id: newId("auditCheckpoint"), workspaceId, seq: head.seq, hash: head.hash, signedAt, kid, jws }).returning();
    return row!;
  });
}

/** The workspace's latest checkpoint, or null. */
export async function latestCheckpoint(workspaceId: string): Promise<AuditCheckpointRow | null> {
  const q = await queryable();
  const [row] = await q.select().from(auditCheckpoints).where(eq(auditCheckpoints.workspaceId, workspaceId)).orderBy(desc(auditCheckpoints.seq)).limit(1);
  return row ?? null;
}

/** Checkpoints newest first, for a witness to keep. */
export async function listCheckpoints(workspaceId: string, f: Pagination) {
  const q = await queryable();
  const rows = await q
    .select()
    .from(auditCheckpoints)
    .where(and(eq(auditCheckpoints.workspaceId, workspaceId), f.starting_after ? lt(auditCheckpoints.id, f.starting_after) : undefined))
    .orderBy(desc(auditCheckpoints.id))
    .limit(f.limit + 1);
  return page(rows, f.limit);
}

export const serializeCheckpoint = (c: AuditCheckpointRow) => ({
  id: c.id,
  object: "audit_checkpoint" as const,
  seq: c.seq,
  hash: c.hash,
  signed_at: c.signedAt.toISOString(),
  kid: c.kid,
  jws: c.jws,
});

/** Checks a checkpoint (from the database or a witness) against the workspace's public keys; returns what it signs, or throws. */
export async function verifyCheckpoint(jws: string, workspaceId: string): Promise<CheckpointPayload> {
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(await publicJwks(workspaceId)));
  if (protectedHeader.typ !== CHECKPOINT_TYPE) throw new Error("not an audit checkpoint");
  const body = JSON.parse(new TextDecoder().decode(payload)) as CheckpointPayload;
  if (body.workspace_id !== workspaceId) throw new Error("a checkpoint of another workspace");
  return body;
}
