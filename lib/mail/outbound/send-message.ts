import type { z } from "zod";
import { transaction } from "../../../db/transaction";
import { messages, type InboxRow, type MessageRow } from "../../../db/schema";
import { AppError } from "../../errors";
import { env } from "../../config/env";
import { newId } from "../../ids";
import type { Actor } from "../../actor";
import { appendAudit } from "../../audit/append-audit";
import { scheduleWork } from "../../jobs/schedule";
import { MESSAGE_DELIVERY_KIND } from "./deliver-outbound";
import { emitEvent } from "../../events/emit-event";
import { getInbox } from "../inboxes";
import { findMessage } from "../read-mail";
import { parseMessageOffThread } from "../inbound/parse-pool";
import { messageEventPayload } from "../serialize";
import { parsedColumns } from "../store-message";
import { encodeSource, storeSource } from "../message-source";
import { mailLimits } from "../inbound/mail-limits";
import { resolveThread } from "../threading";
import { deliverLocally, externalAddresses, localRecipients, lockInboxes, LOCAL_SENDER_AUTH } from "../local-delivery";
import { configuredTransport } from "../send-mail";
import { MAX_SEND_RECIPIENTS, type replyInput, type sendMessageInput } from "../schemas";
import { checkCustomHeaders } from "./headers";
import { composeOutbound, outboundMessageId, replyReferences, replySubject, type Draft } from "./compose";

/** `POST /v1/inboxes/{id}/messages`: a new message from the inbox. */
export async function sendMessage(actor: Actor, inboxId: string, input: z.output<typeof sendMessageInput>): Promise<MessageRow> {
  const inbox = await getInbox(actor, inboxId);
  return queueOutbound(actor, inbox, {
    to: input.to,
    cc: input.cc.filter((a) => !input.to.includes(a)),
    subject: input.subject,
    text: input.text,
    html: input.html,
    references: [],
    headers: checkCustomHeaders(input.headers),
  });
}

/**
 * `POST /v1/messages/{id}/reply`: answers the sender (its Reply-To if it gave one), or with
 * `reply_all` everyone else on the message too, in the same thread, with In-Reply-To set to
 * the parent and References carrying the whole chain.
 */
export async function replyToMessage(actor: Actor, parentId: string, input: z.output<typeof replyInput>): Promise<MessageRow> {
  const parent = await findMessage(actor, parentId);
  const inbox = await getInbox(actor, parent.inboxId);
  if (parent.direction === "inbound" && parent.automated && !input.allow_automated) {
    throw new AppError(
      "conflict",
      `Message ${parent.id} is automated (${parent.automatedReasons.join(", ")}): replying risks a mail loop. Pass "allow_automated": true if a person really is waiting.`,
    );
  }
  const self = inbox.address.toLowerCase();
  const primary =
    parent.direction === "inbound"
      ? [parent.headersOfNote.reply_to ?? parent.from.email]
      : parent.to.map((a) => a.email);
  const others = input.reply_all ? [...(parent.direction === "inbound" ? parent.to : []), ...parent.cc].map((a) => a.email) : [];
  const to = unique(primary).filter((a) => a && a !== self);
  const cc = unique(others).filter((a) => a && a !== self && !to.includes(a));
  if (!to.length) throw new AppError("unprocessable_message", `Message ${parent.id} has no sender address to reply to.`);
  // A reply fans out no wider than a new message may (sendMessageInput: 50 in To and Cc).
  if (to.length + cc.length > MAX_SEND_RECIPIENTS) {
    throw new AppError("unprocessable_message", `Replying to all would address ${to.length + cc.length} recipients, over ${MAX_SEND_RECIPIENTS}: reply without reply_all, or send a new message to the people who need it.`, {
      reason: "too_many_recipients",
      limit: MAX_SEND_RECIPIENTS,
    });
  }
  return queueOutbound(actor, inbox, {
    to,
    cc,
    subject: replySubject(parent.subject),
    text: input.text,
    html: input.html,
    inReplyTo: parent.messageId,
    references: replyReferences(parent),
    headers: checkCustomHeaders(input.headers),
  });
}

const unique = (list: string[]) => [...new Set(list.map((a) => a.trim().toLowerCase()))];

/**
 * Stores an outbound message, composed as real RFC 5322 bytes and parsed back the way
 * received mail is, so sent and received mail have one shape. With a mail provider it is
 * `queued` for the delivery job (a provider call never holds a transaction open, and a crash
 * after commit loses nothing); without one it is `captured` at once and `email.sent` is emitted.
 * Recipients that are inboxes of this deployment get it in the same transaction (local delivery);
 * when they are all local it is `delivered` at once, with no provider involved.
 */
async function queueOutbound(actor: Actor, inbox: InboxRow, draft: Draft): Promise<MessageRow> {
  const id = newId("message");
  const at = new Date();
  const raw = await composeOutbound(inbox, draft, outboundMessageId(id, inbox), at);
  const limit = env().MAIL_MAX_BYTES;
  if (raw.length > limit) throw new AppError("payload_too_large", `The message is ${raw.length} bytes composed, over the ${limit}-byte limit (MAIL_MAX_BYTES).`, { limit_bytes: limit });
  // What was written is kept whole: the body limit is for received mail (the API bounds what is sent).
  const limits = mailLimits();
  const parsed = await parseMessageOffThread(raw, { limits: { ...limits, bodyChars: Math.max(limits.bodyChars, raw.length) } });
  const source = await encodeSource(raw, parsed.sha256);
  const recipients = [...draft.to, ...draft.cc];
  const local = await localRecipients(inbox, recipients);
  const localCopy = local.length ? await parseMessageOffThread(raw, { senderAuth: LOCAL_SENDER_AUTH }) : null;
  const status = local.length && !externalAddresses(recipients, local).length ? "delivered" : configuredTransport() ? "queued" : "captured";
  // Mail between inboxes here is one trace on both sides.
  const traceId = actor.traceId ?? (local.length ? newId("trace") : null);

  return transaction(async (tx) => {
    await lockInboxes(tx, [inbox.id, ...local.map((i) => i.id)]);
    const threadId = await resolveThread(tx, inbox, parsed, at);
    const [message] = await tx
      .insert(messages)
      .values({
        id,
        workspaceId: inbox.workspaceId,
        inboxId: inbox.id,
        threadId,
        direction: "outbound",
        status,
        ...parsedColumns(parsed),
        htmlBody: draft.html ?? null,
        customHeaders: Object.keys(draft.headers).length ? draft.headers : null,
        nextSendAt: status === "queued" ? at : null,
        traceId,
        createdAt: at,
      })
      .returning();
    await storeSource(tx, id, source);
    const delivered = localCopy ? await deliverLocally(local, localCopy, source, traceId!) : [];
    const summary = {
      inbox_id: inbox.id, to: draft.to, cc: draft.cc, message_id: parsed.messageId, in_reply_to: draft.inReplyTo ?? null, status,
      ...(delivered.length ? { delivered_locally: delivered.map((d) => ({ inbox_id: d.inbox_id, message_id: d.message_id, refused: d.refused })) } : {}),
    };
    const sent = status !== "queued";
    const traced = { ...actor, traceId: traceId ?? undefined };
    if (sent) await emitEvent(tx, traced, { type: "email.sent", agentId: inbox.agentId, data: messageEventPayload(message!) });
    await appendAudit(tx, [{ actor: traced, action: sent ? "email.sent" : "email.queued", resource: { type: "message", id }, agentId: inbox.agentId, summary }]);
    if (status === "queued") scheduleWork(MESSAGE_DELIVERY_KIND, [{ id, workspaceId: inbox.workspaceId, key: inbox.id, dueAt: at }]);
    return message!;
  });
}
