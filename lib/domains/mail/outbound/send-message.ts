import type { z } from "zod";
import type { Transaction } from "../../../../db/client";
import { transaction } from "../../../../db/transaction";
import { messages, type InboxRow, type MessageRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { newId } from "../../../platform/ids";
import type { Actor } from "../../../platform/actor";
import { isAgentBound } from "../../../platform/traces/trace-access";
import { appendAudit } from "../../../platform/audit/append-audit";
import { scheduleWork } from "../../../platform/jobs/schedule";
import { MESSAGE_DELIVERY_KIND } from "./deliver-outbound";
import { emitEvent } from "../../../platform/events/emit-event";
import { getInbox } from "../inboxes";
import { assertInboxCanSend } from "../mail-domains";
import { findMessage } from "../read-mail";
import { parseMessageOffThread } from "../inbound/parse-pool";
import { messageEventPayload } from "../serialize";
import { agentTaint } from "../../taint";
import { parsedColumns } from "../store-message";
import { encodeSource, storeSource, type EncodedSource } from "../message-source";
import type { ParsedMessage } from "../inbound/parse-message";
import { mailLimits } from "../inbound/mail-limits";
import { resolveThread } from "../threading";
import { carriedTrace, deliverLocally, externalAddresses, localRecipients, lockInboxes, LOCAL_SENDER_AUTH } from "../local-delivery";
import { configuredTransport } from "../send-mail";
import { MAX_SEND_RECIPIENTS, type replyInput, type sendMessageInput } from "../schemas";
import { checkCustomHeaders } from "./headers";
import { composeOutbound, outboundMessageId, replyReferences, replySubject, type Draft } from "./compose";

// Whether to hold the message for a person is decided before these run (lib/domains/approvals/mail-gate.ts).
type SendInput = Omit<z.output<typeof sendMessageInput>, "require_approval">;
type ReplyInput = Omit<z.output<typeof replyInput>, "require_approval">;

/** `POST /v1/inboxes/{id}/messages`: a new message from the inbox. */
export async function sendMessage(actor: Actor, inboxId: string, input: SendInput): Promise<MessageRow> {
  const { inbox, draft } = await draftForSend(actor, inboxId, input);
  return sendDraft(actor, inbox, draft);
}

/** The inbox and the draft of a new message, checked (the key's own inbox, safe headers). */
export async function draftForSend(actor: Actor, inboxId: string, input: SendInput): Promise<{ inbox: InboxRow; draft: Draft }> {
  const inbox = await getInbox(actor, inboxId);
  await assertInboxCanSend(inbox);
  return { inbox, draft: {
    to: input.to,
    cc: input.cc.filter((a) => !input.to.includes(a)),
    subject: input.subject,
    text: input.text,
    html: input.html,
    references: [],
    headers: checkCustomHeaders(input.headers),
  } };
}

/**
 * `POST /v1/messages/{id}/reply`: answers the sender (its Reply-To if it gave one), or with
 * `reply_all` everyone else on the message too, in the same thread, with In-Reply-To set to
 * the parent and References carrying the whole chain.
 */
export async function replyToMessage(actor: Actor, parentId: string, input: ReplyInput): Promise<MessageRow> {
  const { inbox, draft } = await draftForReply(actor, parentId, input);
  return sendDraft(actor, inbox, draft);
}

/** The inbox and the draft of a reply, checked (automated mail, recipients, headers). */
export async function draftForReply(actor: Actor, parentId: string, input: ReplyInput): Promise<{ inbox: InboxRow; draft: Draft; parent: MessageRow }> {
  const parent = await findMessage(actor, parentId);
  const inbox = await getInbox(actor, parent.inboxId);
  await assertInboxCanSend(inbox);
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
  return { inbox, parent, draft: {
    to,
    cc,
    subject: replySubject(parent.subject),
    text: input.text,
    html: input.html,
    inReplyTo: parent.messageId,
    references: replyReferences(parent),
    headers: checkCustomHeaders(input.headers),
  } };
}

const unique = (list: string[]) => [...new Set(list.map((a) => a.trim().toLowerCase()))];

/** A message composed as real RFC 5322 bytes (its id and Date fixed), those bytes parsed back, and compressed for storage. */
export type ComposedOutbound = { id: string; at: Date; raw: Buffer; parsed: ParsedMessage; source: EncodedSource };

export async function composeForSending(inbox: InboxRow, draft: Draft): Promise<ComposedOutbound> {
  const id = newId("message");
  const at = new Date();
  const raw = await composeOutbound(inbox, draft, outboundMessageId(id, inbox), at);
  const limit = env().MAIL_MAX_BYTES;
  if (raw.length > limit) throw new AppError("payload_too_large", `The message is ${raw.length} bytes composed, over the ${limit}-byte limit (MAIL_MAX_BYTES).`, { limit_bytes: limit });
  // What was written is kept whole: the body limit is for received mail (the API bounds what is sent).
  const limits = mailLimits();
  const parsed = await parseMessageOffThread(raw, { limits: { ...limits, bodyChars: Math.max(limits.bodyChars, raw.length) } });
  return { id, at, raw, parsed, source: await encodeSource(raw, parsed.sha256) };
}

/** Recipients that are inboxes of this deployment, with the copy they receive (parsed as received mail). */
/** The local recipients' copy: untrusted in turn when a tainted agent sends it (a person's approval of held mail is not a key's send). */
async function copyFor(actor: Actor, copy: ParsedMessage): Promise<ParsedMessage> {
  if (actor.type !== "key" || !(await agentTaint(actor))) return copy;
  return { ...copy, security: { ...copy.security, tainted_sender: true } };
}

export type LocalRecipients = { inboxes: InboxRow[]; copy: ParsedMessage };

/** Finds the draft's local recipients and parses their copy, before any transaction opens. */
export async function localRecipientsOf(inbox: InboxRow, draft: Draft, raw: Buffer): Promise<LocalRecipients | null> {
  const local = await localRecipients(inbox, [...draft.to, ...draft.cc]);
  return local.length ? { inboxes: local, copy: await parseMessageOffThread(raw, { senderAuth: LOCAL_SENDER_AUTH }) } : null;
}

/**
 * Stores an outbound message, composed as real RFC 5322 bytes and parsed back the way
 * received mail is, so sent and received mail have one shape. With a mail provider it is
 * `queued` for the delivery job (a provider call never holds a transaction open, and a crash
 * after commit loses nothing); without one it is `captured` at once and `email.sent` is emitted.
 * Recipients that are inboxes of this deployment get it in the same transaction (local delivery);
 * when they are all local it is `delivered` at once, with no provider involved.
 */
export async function sendDraft(
  actor: Actor,
  inbox: InboxRow,
  draft: Draft,
  /** Work that commits with the message, before it is stored (a stored draft becomes `sent`): throwing stores nothing. */
  before?: (tx: Transaction, messageId: string) => Promise<void>,
): Promise<MessageRow> {
  const composed = await composeForSending(inbox, draft);
  const local = await localRecipientsOf(inbox, draft, composed.raw);
  const allLocal = local !== null && !externalAddresses([...draft.to, ...draft.cc], local.inboxes).length;
  const status = allLocal ? "delivered" : configuredTransport() ? "queued" : "captured";
  return transaction(async (tx) => {
    await before?.(tx, composed.id);
    return storeOutbound(tx, actor, inbox, draft, composed, status, null, local);
  });
}

/**
 * Stores a composed message inside the caller's transaction: `captured` (email.sent now),
 * `delivered` (every recipient an inbox here), `queued` (for the delivery job) or
 * `pending_approval` (held, exactly these bytes, until `approvalId` is decided:
 * lib/domains/mail/outbound/held-mail.ts). Local recipients get their copy in the same transaction.
 */
export async function storeOutbound(
  tx: Transaction,
  actor: Actor,
  inbox: InboxRow,
  draft: Draft,
  { id, at, parsed, source }: ComposedOutbound,
  status: "captured" | "delivered" | "queued" | "pending_approval",
  approvalId: string | null = null,
  local: LocalRecipients | null = null,
): Promise<MessageRow> {
  // Mail between inboxes here is one trace on both sides.
  const traceId = actor.traceId ?? (local ? newId("trace") : null);
  await lockInboxes(tx, [inbox.id, ...(local?.inboxes ?? []).map((i) => i.id)]);
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
      approvalId,
      createdAt: at,
    })
    .returning();
  await storeSource(tx, id, source);
  const carried = local ? await carriedTrace(inbox, local.inboxes, traceId, actor.type === "key" && actor.agentId ? actor.agentId : inbox.agentId, !isAgentBound(actor)) : null;
  const delivered = local ? await deliverLocally(inbox, local.inboxes, await copyFor(actor, local.copy), source, carried) : [];
  const summary = {
    inbox_id: inbox.id, to: draft.to, cc: draft.cc, message_id: parsed.messageId, in_reply_to: draft.inReplyTo ?? null, status, approval_id: approvalId,
    ...(delivered.length ? { delivered_locally: delivered.map((d) => ({ inbox_id: d.inbox_id, message_id: d.message_id, refused: d.refused })) } : {}),
  };
  const traced = { ...actor, traceId: traceId ?? undefined };
  const sent = status === "captured" || status === "delivered";
  if (sent) await emitEvent(tx, traced, { type: "email.sent", agentId: inbox.agentId, data: messageEventPayload(message!) });
  const action = sent ? "email.sent" : status === "queued" ? "email.queued" : "email.held_for_approval";
  await appendAudit(tx, [{ actor: traced, action, resource: { type: "message", id }, agentId: inbox.agentId, summary }]);
  if (status === "queued") scheduleWork(MESSAGE_DELIVERY_KIND, [{ id, workspaceId: inbox.workspaceId, key: inbox.id, dueAt: at }]);
  return message!;
}
