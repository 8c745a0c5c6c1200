import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../../db/transaction";
import { inboxes, messages, type MessageRow } from "../../../../db/schema";
import type { Actor } from "../../../platform/actor";
import { appendAudit } from "../../../platform/audit/append-audit";
import { emitEvent } from "../../../platform/events/emit-event";
import { configuredTransport, type MailTransport } from "../send-mail";
import { afterFailure, DELIVERY_LEASE_MS } from "../delivery-policy";
import { messageEventPayload } from "../serialize";
import { inboxesFor } from "../inbound/ingest-message";
import { externalAddresses } from "../local-delivery";
import { filesForDelivery } from "./attachments";

const deliveryActor = (m: MessageRow): Actor => ({ type: "system", workspaceId: m.workspaceId, job: "mail-delivery", traceId: m.traceId ?? undefined });

/**
 * Hands queued outbound messages to the mail provider. Claims a batch with SKIP LOCKED and a
 * lease, so concurrent runners never send one message twice at once; the provider call runs
 * outside any transaction with the message id as its idempotency key, so a retry after a
 * crash or a lost response sends nothing twice. Permanent refusals (a 4xx) fail the message;
 * other errors retry on the webhook schedule (5 s ... 10 h, 8 attempts).
 */
export async function deliverOutboundMail(transport: MailTransport | null = configuredTransport(), batch = 20) {
  const result = { sent: 0, retried: 0, failed: 0 };
  if (!transport) return result;
  const claimed = await transaction(async (tx) => {
    const due = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.status, "queued"), lte(messages.nextSendAt, sql`now()`)))
      .orderBy(asc(messages.nextSendAt))
      .limit(batch)
      .for("update", { skipLocked: true });
    if (!due.length) return [];
    return tx.update(messages).set(leaseSet).where(inArray(messages.id, due.map((d) => d.id))).returning();
  });
  for (const message of claimed) result[(await deliverOne(message, transport)).result]++;
  return result;
}

/** One unit of work: claims one queued outbound message (if due and not leased) and hands it to the provider. */
export async function deliverMessage(id: string, transport: MailTransport | null = configuredTransport()): Promise<{ retryAt: Date | null } | null> {
  if (!transport) return null;
  const q = await queryable();
  const [message] = await q
    .update(messages)
    .set(leaseSet)
    .where(and(eq(messages.id, id), eq(messages.status, "queued"), lte(messages.nextSendAt, sql`now()`)))
    .returning();
  if (!message) return null;
  return deliverOne(message, transport);
}

/** The work kind that sends one queued agent message (lib/composition/job-kinds.ts). */
export const MESSAGE_DELIVERY_KIND = "mail.deliver";

/** Queued agent messages, for the work registry. */
export const queuedMessagesSource = () =>
  sql`select id, workspace_id, inbox_id as key, next_send_at as due_at from messages where status = 'queued' and direction = 'outbound'`;

const leaseSet = { sendAttempts: sql`${messages.sendAttempts} + 1`, nextSendAt: sql`now() + make_interval(secs => ${DELIVERY_LEASE_MS / 1000})` };

async function deliverOne(m: MessageRow, transport: MailTransport): Promise<{ result: "sent" | "retried" | "failed"; retryAt: Date | null }> {
  const [inbox] = await (await queryable()).select().from(inboxes).where(eq(inboxes.id, m.inboxId));
  const from = inbox?.displayName ? `${JSON.stringify(inbox.displayName)} <${inbox.address}>` : m.from.email;
  const headers: Record<string, string> = { ...(m.customHeaders ?? {}), "Message-ID": m.messageId };
  if (m.inReplyTo) headers["In-Reply-To"] = m.inReplyTo;
  if (m.references.length) headers["References"] = m.references.join(" ");
  // Recipients that are inboxes here got their copy when it was sent (local delivery).
  const local = (await inboxesFor([...m.to, ...m.cc, ...m.bcc].map((a) => a.email))).filter((i) => i.id !== m.inboxId);
  const [to, cc, bcc] = [m.to, m.cc, m.bcc].map((list) => externalAddresses(list.map((a) => a.email), local)) as [string[], string[], string[]];
  try {
    // Exactly the files in the stored (approved) bytes, read out of them and checked by hash, or the attempt fails.
    const files = await filesForDelivery(m.id);
    const { providerId } = await transport({
      from,
      ...(to.length ? { to, cc } : { to: cc, cc: [] }),
      // Bcc goes in the envelope only (Resend's `bcc`): the stored source never names it.
      ...(bcc.length ? { bcc } : {}),
      subject: m.subject,
      text: m.text,
      html: m.htmlBody ?? undefined,
      headers,
      ...(files.length ? { attachments: files } : {}),
      idempotencyKey: m.id,
    });
    await transaction(async (tx) => {
      const [sent] = await tx
        .update(messages)
        .set({ status: "sent", providerId, nextSendAt: null, lastError: null })
        .where(and(eq(messages.id, m.id), eq(messages.status, "queued")))
        .returning();
      if (!sent) return;
      const actor = deliveryActor(m);
      await emitEvent(tx, actor, { type: "email.sent", agentId: inbox?.agentId, data: { ...messageEventPayload(sent), ...(sent.approvalId ? { approval_id: sent.approvalId } : {}) } });
      await appendAudit(tx, [{ actor, action: "email.sent", resource: { type: "message", id: m.id }, agentId: inbox?.agentId, summary: { provider_id: providerId, attempts: m.sendAttempts, ...(m.approvalId ? { approval_id: m.approvalId } : {}) } }]);
    });
    return { result: "sent", retryAt: null };
  } catch (err) {
    const { error, waitMs: wait } = afterFailure(err, m.sendAttempts);
    const retryAt = wait === null ? null : new Date(Date.now() + wait);
    await transaction(async (tx) => {
      if (wait !== null) {
        await tx
          .update(messages)
          .set({ lastError: error, nextSendAt: retryAt })
          .where(and(eq(messages.id, m.id), eq(messages.status, "queued")));
        return;
      }
      const [failed] = await tx
        .update(messages)
        .set({ status: "failed", lastError: error, nextSendAt: null })
        .where(and(eq(messages.id, m.id), eq(messages.status, "queued")))
        .returning({ id: messages.id });
      if (failed) {
        await appendAudit(tx, [
          { actor: deliveryActor(m), action: "email.failed", resource: { type: "message", id: m.id }, agentId: inbox?.agentId, outcome: "failed", summary: { error, attempts: m.sendAttempts } },
        ]);
      }
    });
    return { result: wait !== null ? "retried" : "failed", retryAt };
  }
}
