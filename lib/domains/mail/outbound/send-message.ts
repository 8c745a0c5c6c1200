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
import { MAX_SEND_RECIPIENTS, type forwardInput, type replyInput, type sendMessageInput } from "../schemas";
import { checkCustomHeaders } from "./headers";
import { composeOutbound, forwardSubject, outboundMessageId, replyReferences, replySubject, type Draft } from "./compose";
import { ATTACHMENT_LIMITS, prepareAttachments, prepareFiles, type PreparedAttachment } from "./attachments";
import { attachmentBytes } from "../attachment-response";
import { queryable } from "../../../../db/transaction";
import { attachments as attachmentsTable } from "../../../../db/schema";
import { eq } from "drizzle-orm";
import { recordReads } from "../../taint";
import { storeAttachments } from "../store-message";

// Whether to hold the message for a person is decided before these run (lib/domains/approvals/mail-gate.ts).
type SendInput = Omit<z.output<typeof sendMessageInput>, "require_approval" | "bcc"> & { bcc?: string[] };
type ReplyInput = Omit<z.output<typeof replyInput>, "require_approval" | "bcc"> & { bcc?: string[] };
export type ForwardInput = Omit<z.output<typeof forwardInput>, "require_approval" | "bcc"> & { bcc?: string[] };

/** `POST /v1/inboxes/{id}/messages`: a new message from the inbox. */
export async function sendMessage(actor: Actor, inboxId: string, input: SendInput): Promise<MessageRow> {
  const { inbox, draft } = await draftForSend(actor, inboxId, input);
  return sendDraft(actor, inbox, draft);
}

/** The inbox and the draft of a new message, checked (the key's own inbox, safe headers). */
export async function draftForSend(actor: Actor, inboxId: string, input: SendInput): Promise<{ inbox: InboxRow; draft: Draft }> {
  // Files are decoded and sniffed first: a refused one changes nothing.
  const attachments = prepareAttachments(input.attachments);
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
    attachments,
    bcc: blindCopies(input.bcc, input.to, input.cc),
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
  const attachments = prepareAttachments(input.attachments);
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
  const bcc = blindCopies(input.bcc, to, cc);
  if (!to.length) throw new AppError("unprocessable_message", `Message ${parent.id} has no sender address to reply to.`);
  // A reply fans out no wider than a new message may (sendMessageInput: 50 in To, Cc and Bcc).
  if (to.length + cc.length + bcc.length > MAX_SEND_RECIPIENTS) {
    const how = bcc.length ? `${to.length + cc.length} in To and Cc and ${bcc.length} in Bcc` : `${to.length + cc.length}`;
    throw new AppError("unprocessable_message", `${input.reply_all ? "Replying to all" : "This reply"} would address ${how} recipients, over ${MAX_SEND_RECIPIENTS}: ${bcc.length ? "Bcc fewer people, " : ""}reply without reply_all, or send a new message to the people who need it.`, {
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
    attachments,
    bcc,
  } };
}

/**
 * `POST /v1/messages/{id}/forward`: the message (received or sent) to new recipients, from its
 * inbox: "Fwd: " before the subject (once), the optional note above the usual "Forwarded message"
 * block and the original's text (and sanitised HTML), and its attachments unless told not to
 * (the same limits and refusals as attachments sent). It names no earlier Message-ID (In-Reply-To
 * and References are not set): the recipients never saw the original, so on their side it starts
 * a thread; in the sending inbox it joins the original's thread, and `forwarded_from` links them.
 * Forwarding carries the original's content: it taints the agent as reading it would.
 */
export async function draftForForward(
  actor: Actor,
  originalId: string,
  input: ForwardInput,
  /** A forward draft's own files, sent after the original's (within one message's limits together). */
  own: PreparedAttachment[] = [],
): Promise<{ inbox: InboxRow; draft: Draft; original: MessageRow }> {
  const original = await findMessage(actor, originalId);
  if (original.direction === "outbound" && (original.status === "pending_approval" || original.status === "discarded")) {
    throw new AppError("conflict", `Message ${original.id} is ${original.status}: a message that waits for (or was refused) a person's approval cannot be forwarded.`);
  }
  const inbox = await getInbox(actor, original.inboxId);
  await assertInboxCanSend(inbox);
  const forwarded = input.include_attachments ? await forwardedFiles(original) : [];
  const attachments = own.length ? prepareFiles([...forwarded, ...own].map((a) => ({ filename: a.filename, declared: a.contentType, bytes: a.bytes })), "attachments") : forwarded;
  await recordReads(actor, [original]);
  const headerBlock = forwardedHeaderBlock(original);
  const text = `${input.note ? `${input.note}\n\n` : ""}${headerBlock.join("\n")}\n\n${original.text}`;
  const html = original.htmlSanitized
    ? `${input.note ? `<div>${escapeHtml(input.note).replace(/\r?\n/g, "<br>")}</div><br>` : ""}<div>${headerBlock.map(escapeHtml).join("<br>")}</div><br>${original.htmlSanitized}`
    : undefined;
  return { inbox, original, draft: {
    to: input.to,
    cc: input.cc.filter((a) => !input.to.includes(a)),
    subject: forwardSubject(original.subject),
    text,
    html,
    references: [],
    headers: checkCustomHeaders(input.headers),
    attachments,
    bcc: blindCopies(input.bcc, input.to, input.cc),
    forwardOf: { id: original.id, threadId: original.threadId },
  } };
}

const who = (a: { name: string | null; email: string }) => (a.name ? `${a.name} <${a.email}>` : a.email);

/** The block Gmail and Outlook put above a forwarded message. */
function forwardedHeaderBlock(m: MessageRow): string[] {
  return [
    "---------- Forwarded message ---------",
    `From: ${who(m.from)}`,
    `Date: ${(m.date ?? m.createdAt).toUTCString()}`,
    `Subject: ${m.subject}`,
    `To: ${m.to.map(who).join(", ")}`,
    ...(m.cc.length ? [`Cc: ${m.cc.map(who).join(", ")}`] : []),
  ];
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The original's files, read back from its source (checked against their recorded hash), within the limits of files sent. */
async function forwardedFiles(original: MessageRow) {
  const q = await queryable();
  const rows = await q.select().from(attachmentsTable).where(eq(attachmentsTable.messageId, original.id)).orderBy(attachmentsTable.partIndex);
  const field = "include_attachments";
  const total = rows.reduce((n, r) => n + r.size, 0);
  // The counts and sizes are known before any byte is read.
  if (rows.length > ATTACHMENT_LIMITS.count || total > ATTACHMENT_LIMITS.totalBytes || rows.some((r) => r.size > ATTACHMENT_LIMITS.fileBytes)) {
    throw new AppError("validation_failed", `Message ${original.id} has ${rows.length} attachments of ${total} bytes: over what one message may carry (${ATTACHMENT_LIMITS.count} files, ${ATTACHMENT_LIMITS.fileBytes} bytes each, ${ATTACHMENT_LIMITS.totalBytes} in all). Forward it with "include_attachments": false.`, {
      errors: [{ field, message: "the attachments are over the limits of one message" }],
    });
  }
  // One pass over the original's source for all its files.
  const bytes = await attachmentBytes(original.id, rows);
  return prepareFiles(rows.map((r, i) => ({ filename: r.filename, declared: null, bytes: bytes[i]! })), field);
}

const unique = (list: string[]) => [...new Set(list.map((a) => a.trim().toLowerCase()))];

/** Bcc recipients once each, without those already in To or Cc (they get the message anyway, named). */
const blindCopies = (bcc: string[] | undefined, to: string[], cc: string[]) => unique(bcc ?? []).filter((a) => !to.includes(a) && !cc.includes(a));

/** A message composed as real RFC 5322 bytes (its id and Date fixed), those bytes parsed back, and compressed for storage. */
export type ComposedOutbound = { id: string; at: Date; raw: Buffer; parsed: ParsedMessage; source: EncodedSource };

export async function composeForSending(inbox: InboxRow, draft: Draft): Promise<ComposedOutbound> {
  await assertBccDeliverable(inbox, draft);
  const id = newId("message");
  const at = new Date();
  const raw = await composeOutbound(inbox, draft, outboundMessageId(id, inbox), at);
  // MAIL_MAX_BYTES bounds the message itself; its attachments have their own limits (ATTACHMENT_LIMITS), here as base64 in 76-character lines.
  const limit = env().MAIL_MAX_BYTES + draft.attachments.reduce((n, a) => n + Math.ceil((Math.ceil(a.size / 3) * 4 * 78) / 76) + 1024, 0);
  if (raw.length > limit) throw new AppError("payload_too_large", `The message is ${raw.length} bytes composed, over the ${limit}-byte limit (MAIL_MAX_BYTES, plus its attachments).`, { limit_bytes: limit });
  // What was written is kept whole: the body limit is for received mail (the API bounds what is sent).
  const limits = mailLimits();
  const parsed = await parseMessageOffThread(raw, { limits: { ...limits, bodyChars: Math.max(limits.bodyChars, raw.length) } });
  return { id, at, raw, parsed, source: await encodeSource(raw, parsed.sha256) };
}

/**
 * Bcc travels in the provider's envelope beside To or Cc; a provider call needs a visible
 * recipient. When every To and Cc is an inbox here (delivered locally, never handed to the
 * provider) and a Bcc is not, there is no call to carry it: refused (422) rather than sent to
 * the Bcc as a visible To, which would tell each Bcc the others.
 */
async function assertBccDeliverable(inbox: InboxRow, draft: Draft): Promise<void> {
  if (!draft.bcc?.length) return;
  const local = await localRecipients(inbox, [...draft.to, ...draft.cc, ...draft.bcc]);
  const visible = externalAddresses([...draft.to, ...draft.cc], local);
  if (!visible.length && externalAddresses(draft.bcc, local).length) {
    throw new AppError("unprocessable_message", "Every To and Cc recipient is an inbox of this deployment, so the message is not handed to the mail provider, and Bcc to an outside address needs it: add an outside recipient to To or Cc, or send the Bcc recipients their own message.", { reason: "bcc_needs_external_recipient" });
  }
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
  const local = await localRecipients(inbox, [...draft.to, ...draft.cc, ...(draft.bcc ?? [])]);
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
  const allLocal = local !== null && !externalAddresses([...draft.to, ...draft.cc, ...(draft.bcc ?? [])], local.inboxes).length;
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
  const threadId = await resolveThread(tx, inbox, parsed, at, draft.forwardOf?.threadId);
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
      bcc: (draft.bcc ?? []).map((email) => ({ name: null, email })),
      htmlBody: draft.html ?? null,
      customHeaders: Object.keys(draft.headers).length ? draft.headers : null,
      nextSendAt: status === "queued" ? at : null,
      traceId,
      approvalId,
      forwardedFromId: draft.forwardOf?.id ?? null,
      createdAt: at,
    })
    .returning();
  // The one copy of the files is in the source (the delivery job reads them out of it); the rows list them, parsed from those bytes.
  await storeSource(tx, id, source);
  await storeAttachments(tx, message!, parsed);
  const carried = local ? await carriedTrace(inbox, local.inboxes, traceId, actor.type === "key" && actor.agentId ? actor.agentId : inbox.agentId, !isAgentBound(actor)) : null;
  const delivered = local ? await deliverLocally(inbox, local.inboxes, await copyFor(actor, local.copy), source, carried) : [];
  const summary = {
    inbox_id: inbox.id, to: draft.to, cc: draft.cc, ...(draft.bcc?.length ? { bcc: draft.bcc } : {}), message_id: parsed.messageId, in_reply_to: draft.inReplyTo ?? null, status, approval_id: approvalId,
    ...(parsed.attachments.length ? { attachments: parsed.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, size: a.size, sha256: a.sha256 })) } : {}),
    ...(draft.forwardOf ? { forwarded_from: draft.forwardOf.id } : {}),
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
