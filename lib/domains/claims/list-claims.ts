import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { agents, messageClaims } from "../../../db/schema";

/**
 * Who handles what in an inbox (the web app): per message, its open claim (live or completed)
 * or the most recent one, with the claiming agent's name.
 */
export async function claimsForMessages(workspaceId: string, messageIds: string[]) {
  if (!messageIds.length) return new Map<string, { status: string; agentName: string | null; expiresAt: Date; endedAt: Date | null }>();
  const q = await queryable();
  const rows = await q
    .select({
      messageId: messageClaims.messageId,
      status: sql<string>`case when ${messageClaims.status} = 'claimed' and ${messageClaims.expiresAt} <= clock_timestamp() then 'expired' else ${messageClaims.status} end`,
      agentName: agents.name,
      expiresAt: messageClaims.expiresAt,
      endedAt: messageClaims.endedAt,
    })
    .from(messageClaims)
    .leftJoin(agents, eq(agents.id, messageClaims.agentId))
    .where(and(eq(messageClaims.workspaceId, workspaceId), inArray(messageClaims.messageId, messageIds)))
    .orderBy(desc(messageClaims.id));
  const byMessage = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!byMessage.has(r.messageId)) byMessage.set(r.messageId, r);
  return byMessage;
}
