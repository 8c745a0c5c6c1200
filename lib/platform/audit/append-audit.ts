import type { Transaction } from "../../../db/client";
import { auditEntries, type AuditEntryRow } from "../../../db/schema";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { scheduleSeal } from "./seal-chain";

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
 * Appends entries inside the caller's transaction, so an entry commits or rolls back with
 * the change it records. Appending takes no lock: entries are chained afterwards, in commit
 * order, by the sealer (seal-chain.ts), so writers of one workspace never wait on each other.
 */
export async function appendAudit(tx: Transaction, inputs: AuditInput[]): Promise<AuditEntryRow[]> {
  if (inputs.length === 0) return [];
  const at = new Date();
  for (const workspaceId of new Set(inputs.map((i) => i.actor.workspaceId))) scheduleSeal(workspaceId, at);
  return tx
    .insert(auditEntries)
    .values(
      inputs.map((i) => ({
        id: newId("audit"),
        workspaceId: i.actor.workspaceId,
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
      })),
    )
    .returning();
}
