import { and, eq, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { queryable } from "../../../db/transaction";
import { inboxes, messages, type MessageRow } from "../../../db/schema";
import type { Actor } from "../../actor";
import { appendAudit } from "../../audit/append-audit";
import { emitEvent } from "../../events/emit-event";
import { scheduleWork } from "../../jobs/schedule";
import { configuredTransport } from "../send-mail";
import { messageEventPayload } from "../serialize";
import { MESSAGE_DELIVERY_KIND } from "./deliver-outbound";
import { readSource } from "../message-source";

/**
 * Settles the message held for an approval, inside the transaction that resolves it: approved,
 * exactly the stored bytes go out through the usual path (`captured` now without a mail
 * provider, `queued` for the delivery job with one); otherwise it is `discarded`, never sent.
 * Returns the message, or null when the approval held none.
 */
export async function settleHeldMail(tx: Transaction, actor: Actor, approvalId: string, approved: boolean): Promise<MessageRow | null> {
  const status = approved ? (configuredTransport() ? "queued" : "captured") : "discarded";
  const [m] = await tx
    .update(messages)
    .set({ status, nextSendAt: status === "queued" ? sql`clock_timestamp()` : null })
    .where(and(eq(messages.approvalId, approvalId), eq(messages.status, "pending_approval")))
    .returning();
  if (!m) return null;
  const [inbox] = await tx.select({ agentId: inboxes.agentId }).from(inboxes).where(eq(inboxes.id, m.inboxId));
  const summary = { approval_id: approvalId, message_id: m.messageId, status };
  if (status === "captured") await emitEvent(tx, actor, { type: "email.sent", agentId: inbox?.agentId, data: { ...messageEventPayload(m), approval_id: approvalId } });
  const action = status === "captured" ? "email.sent" : status === "queued" ? "email.queued" : "email.discarded";
  await appendAudit(tx, [{ actor, action, resource: { type: "message", id: m.id }, agentId: inbox?.agentId ?? null, summary }]);
  if (status === "queued") scheduleWork(MESSAGE_DELIVERY_KIND, [{ id: m.id, workspaceId: m.workspaceId, key: m.inboxId, dueAt: new Date() }]);
  return m;
}

/** The message an approval holds (or held), with its exact RFC 5322 bytes, for the page that shows it to the people deciding. */
export async function heldMessageForApproval(workspaceId: string, approvalId: string): Promise<{ message: MessageRow; raw: Buffer } | null> {
  const q = await queryable();
  const [message] = await q
    .select()
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), eq(messages.approvalId, approvalId)))
    .limit(1);
  return message ? { message, raw: await readSource(message.id) } : null;
}
