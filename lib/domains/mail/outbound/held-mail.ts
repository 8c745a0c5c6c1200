import { and, eq, sql } from "drizzle-orm";
import type { Transaction } from "../../../../db/client";
import { queryable } from "../../../../db/transaction";
import { inboxes, messages, type InboxRow, type MessageRow } from "../../../../db/schema";
import type { Actor } from "../../../platform/actor";
import { appendAudit } from "../../../platform/audit/append-audit";
import { emitEvent } from "../../../platform/events/emit-event";
import { scheduleWork } from "../../../platform/jobs/schedule";
import { configuredTransport } from "../send-mail";
import { messageEventPayload } from "../serialize";
import { MESSAGE_DELIVERY_KIND } from "./deliver-outbound";
import { encodeSource, readSource } from "../message-source";
import { newId } from "../../../platform/ids";
import { inboxesFor, type Delivery } from "../inbound/ingest-message";
import { parseMessageOffThread } from "../inbound/parse-pool";
import { carriedTrace, deliverLocally, externalAddresses, LOCAL_SENDER_AUTH, lockInboxes } from "../local-delivery";

/**
 * Settles the message held for an approval, inside the transaction that resolves it: approved,
 * exactly the stored bytes go out through the usual path (`captured` now without a mail
 * provider, `queued` for the delivery job with one), and recipients that are inboxes of this
 * deployment get those bytes now, threaded, as mail sent at once does (`delivered` when every
 * recipient is here); otherwise it is `discarded`, never sent. Returns the message, or null when
 * the approval held none.
 */
export async function settleHeldMail(tx: Transaction, actor: Actor, approvalId: string, approved: boolean): Promise<MessageRow | null> {
  const [held] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.approvalId, approvalId), eq(messages.status, "pending_approval")))
    .for("update");
  if (!held) return null;
  const recipients = [...held.to, ...held.cc, ...held.bcc].map((a) => a.email);
  const local = approved ? (await inboxesFor(recipients)).filter((i) => i.id !== held.inboxId) : [];
  const allLocal = local.length > 0 && externalAddresses(recipients, local).length === 0;
  const status = !approved ? "discarded" : allLocal ? "delivered" : configuredTransport() ? "queued" : "captured";
  // Mail between inboxes here is one trace on both sides.
  const traceId = held.traceId ?? (local.length ? newId("trace") : null);
  const [m] = await tx
    .update(messages)
    .set({ status, traceId, nextSendAt: status === "queued" ? sql`clock_timestamp()` : null })
    .where(eq(messages.id, held.id))
    .returning();
  const [inbox] = await tx.select().from(inboxes).where(eq(inboxes.id, m!.inboxId));
  // The trace was chosen when the agent sent it: its copies carry it only if that agent may use it.
  const carried = local.length ? await carriedTrace(inbox!, local, traceId, inbox!.agentId, inbox!.agentId === null) : null;
  const delivered = local.length ? await deliverHeldLocally(tx, inbox!, m!, local, carried) : [];
  const summary = {
    approval_id: approvalId, message_id: m!.messageId, status,
    ...(delivered.length ? { delivered_locally: delivered.map((d) => ({ inbox_id: d.inbox_id, message_id: d.message_id, refused: d.refused })) } : {}),
  };
  const traced = traceId && !actor.traceId ? { ...actor, traceId } : actor;
  const sent = status === "captured" || status === "delivered";
  if (sent) await emitEvent(tx, traced, { type: "email.sent", agentId: inbox?.agentId, data: { ...messageEventPayload(m!), approval_id: approvalId } });
  const action = sent ? "email.sent" : status === "queued" ? "email.queued" : "email.discarded";
  await appendAudit(tx, [{ actor: traced, action, resource: { type: "message", id: m!.id }, agentId: inbox?.agentId ?? null, summary }]);
  if (status === "queued") scheduleWork(MESSAGE_DELIVERY_KIND, [{ id: m!.id, workspaceId: m!.workspaceId, key: m!.inboxId, dueAt: new Date() }]);
  return m!;
}

/**
 * The approved bytes, read back from storage and parsed as received mail, delivered to the
 * recipients that are inboxes here (under their locks, in id order, as a send takes them).
 */
async function deliverHeldLocally(tx: Transaction, sender: InboxRow, m: MessageRow, local: InboxRow[], traceId: string | null): Promise<Delivery[]> {
  const raw = await readSource(m.id);
  const copy = await parseMessageOffThread(raw, { senderAuth: LOCAL_SENDER_AUTH });
  await lockInboxes(tx, [m.inboxId, ...local.map((i) => i.id)]);
  return deliverLocally(sender, local, copy, await encodeSource(raw, copy.sha256), traceId);
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
