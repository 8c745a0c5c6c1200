import { sql } from "drizzle-orm";
import type { Transaction } from "../../db/client";
import { auditEntries, auditHeads, type AuditEntryRow } from "../../db/schema";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { entryHash, GENESIS_HASH } from "./chain";

export type AuditInput = {
  actor: Actor;
  action: string;
  resource: { type: string; id: string };
  /** Defaults to the acting agent of an agent-bound key. */
  agentId?: string | null;
  summary?: Record<string, unknown>;
  outcome?: AuditEntryRow["outcome"];
};

export function actorId(actor: Actor): string {
  switch (actor.type) {
    case "key":
      return actor.keyId;
    case "member":
      return actor.memberId;
    case "operator":
      return actor.name;
    case "system":
      return actor.job;
  }
}

/**
 * Appends entries to their workspace's hash chain inside the caller's transaction, so the
 * entry commits or rolls back with the change it records. Locking the chain head serialises
 * appends per workspace; call this as the transaction's last statement so the lock is held
 * only until commit.
 */
export async function appendAudit(tx: Transaction, inputs: AuditInput[]): Promise<AuditEntryRow[]> {
  if (inputs.length === 0) return [];
  const workspaceId = inputs[0]!.actor.workspaceId;
  if (inputs.some((i) => i.actor.workspaceId !== workspaceId)) throw new Error("appendAudit: one workspace per call");

  // Creates the head on first use, or locks it (ON CONFLICT DO UPDATE takes the row lock).
  const [head] = await tx
    .insert(auditHeads)
    .values({ workspaceId, seq: 0, hash: GENESIS_HASH })
    .onConflictDoUpdate({ target: auditHeads.workspaceId, set: { seq: sql`${auditHeads.seq}` } })
    .returning();

  let prev = head!.hash;
  let seq = head!.seq;
  const at = new Date();
  const rows: AuditEntryRow[] = inputs.map((i) => {
    const base = {
      id: newId("audit"),
      workspaceId,
      seq: ++seq,
      at,
      actorType: i.actor.type,
      actorId: actorId(i.actor),
      agentId: i.agentId !== undefined ? i.agentId : i.actor.type === "key" ? i.actor.agentId : null,
      action: i.action,
      resourceType: i.resource.type,
      resourceId: i.resource.id,
      traceId: i.actor.traceId ?? null,
      requestId: i.actor.requestId ?? null,
      summary: i.summary ?? {},
      outcome: i.outcome ?? "succeeded",
    };
    const row = { ...base, prevHash: prev, hash: entryHash(prev, base) };
    prev = row.hash;
    return row;
  });

  await tx.insert(auditEntries).values(rows);
  await tx.update(auditHeads).set({ seq, hash: prev }).where(sql`${auditHeads.workspaceId} = ${workspaceId}`);
  return rows;
}
