import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { inboxes } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { defineOperation } from "../../platform/api/operation";
import { getInbox } from "./inboxes";

/**
 * Deletes an inbox with all its mail: its threads, messages, attachments and raw sources go in
 * the same transaction (nothing of it stays readable). The address stops receiving at once
 * (mail to it is refused as to an unknown address) and may be given to a new inbox. The audit
 * trail keeps every entry about the inbox, and this deletion with the counts.
 */
export async function deleteInbox(actor: Actor, id: string): Promise<{ id: string; address: string; messages: number; threads: number }> {
  return transaction(async (tx) => {
    const inbox = await getInbox(actor, id);
    const { rows } = await tx.execute<{ messages: number; threads: number }>(sql`
      select (select count(*)::int from messages where inbox_id = ${inbox.id}) as messages,
             (select count(*)::int from threads where inbox_id = ${inbox.id}) as threads`);
    const counts = { messages: Number(rows[0]!.messages), threads: Number(rows[0]!.threads) };
    await tx.delete(inboxes).where(and(eq(inboxes.workspaceId, actor.workspaceId), eq(inboxes.id, inbox.id)));
    await appendAudit(tx, [
      { actor, action: "inbox.deleted", resource: { type: "inbox", id: inbox.id }, agentId: inbox.agentId, summary: { address: inbox.address, ...counts } },
    ]);
    return { id: inbox.id, address: inbox.address, ...counts };
  });
}

export const deletedInboxSchema = z
  .object({
    id: z.string(),
    object: z.literal("inbox"),
    deleted: z.literal(true),
    address: z.string(),
    messages_deleted: z.number().int(),
    threads_deleted: z.number().int(),
  })
  .meta({ id: "DeletedInbox" });

export const deleteInboxOp = defineOperation({
  method: "DELETE",
  path: "/v1/inboxes/{id}",
  operationId: "deleteInbox",
  summary: "Delete an inbox and all its mail",
  description:
    "Deletes the inbox with its threads, messages and attachments, at once and for good. Mail sent to the address afterwards is refused " +
    "as to an unknown address; the address can be given to a new inbox. Audit entries about the inbox are kept. An agent-bound key deletes only its agent's inboxes.",
  tag: "Mail",
  scope: "mail",
  responses: { 200: { description: "Deleted", schema: deletedInboxSchema } },
});

export const serializeDeletedInbox = (d: Awaited<ReturnType<typeof deleteInbox>>) => ({
  id: d.id,
  object: "inbox" as const,
  deleted: true as const,
  address: d.address,
  messages_deleted: d.messages,
  threads_deleted: d.threads,
});
