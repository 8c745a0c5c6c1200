import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { agentTaints, type AgentTaintRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { notFound } from "../../platform/errors";

/** The live taints of a workspace (what each agent read that it may not act on alone), newest read first. */
export async function liveTaints(workspaceId: string): Promise<AgentTaintRow[]> {
  const q = await queryable();
  return q
    .select()
    .from(agentTaints)
    .where(and(eq(agentTaints.workspaceId, workspaceId), isNull(agentTaints.clearedAt), gt(agentTaints.expiresAt, sql`clock_timestamp()`)))
    .orderBy(desc(agentTaints.lastReadAt))
    .limit(500);
}

/**
 * A person lifts a reader's taint (SPEC §13): every live taint of that agent (or workspace-wide
 * key) is cleared, and audited. Reading untrusted mail again taints it again. Only people clear
 * taint: no API key can (the web app calls this for a signed-in approver).
 */
export async function clearTaint(actor: Actor & { type: "member" | "operator" }, reader: string): Promise<number> {
  return transaction(async (tx) => {
    const cleared = await tx
      .update(agentTaints)
      .set({ clearedAt: sql`clock_timestamp()`, clearedBy: actor.type === "member" ? actor.memberId : actor.name })
      .where(and(eq(agentTaints.workspaceId, actor.workspaceId), eq(agentTaints.reader, reader), isNull(agentTaints.clearedAt), gt(agentTaints.expiresAt, sql`clock_timestamp()`)))
      .returning({ messageId: agentTaints.messageId });
    if (!cleared.length) throw notFound("taint of", reader);
    await appendAudit(tx, [
      {
        actor,
        action: "agent.taint_cleared",
        resource: { type: reader.startsWith("key_") ? "api_key" : "agent", id: reader },
        agentId: reader.startsWith("key_") ? null : reader,
        summary: { message_ids: cleared.map((c) => c.messageId) },
      },
    ]);
    return cleared.length;
  });
}
