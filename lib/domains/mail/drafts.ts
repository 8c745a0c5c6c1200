import { createHash } from "node:crypto";
import { and, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { Transaction } from "../../../db/client";
import { queryable, transaction } from "../../../db/transaction";
import { drafts, inboxes, messages, type DraftActor, type DraftRow, type DraftStatus, type InboxRow, type MessageRow } from "../../../db/schema";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { page } from "../../platform/api/pagination";
import { getInbox } from "./inboxes";
import { assertInboxCanSend } from "./mail-domains";
import { findMessage } from "./read-mail";
import { checkCustomHeaders } from "./outbound/headers";
import { replyReferences, type Draft } from "./outbound/compose";
import { draftForForward, draftForReply } from "./outbound/send-message";
import { recordReads } from "../taint";
import { attachmentNotes, blobRef, filesFromBlobs, prepareAttachments, storeBlobs, type AttachmentNote, type PreparedAttachment } from "./outbound/attachments";
import { draftFiles, dropUnlistedBlobs, lockBlobs } from "./draft-files";
import type { createDraftInput, listDraftsQuery, updateDraftInput } from "./draft-schemas";

/**
 * Drafts (issue #31): mail an agent or a person is still writing, kept editable until it is
 * sent, sent back with a note, or discarded. Every change names the version it read (optimistic
 * concurrency); sending hands exactly that version to the one send path
 * (lib/domains/approvals/mail-gate.ts `sendStoredDraft`), once: the draft becomes `sent` in the
 * transaction that stores the message, so racing sends store one message.
 */

const EDITABLE: DraftStatus[] = ["draft", "returned"];

export function draftActor(actor: Actor): DraftActor {
  if (actor.type === "key") return { type: "key", key_id: actor.keyId, agent_id: actor.agentId };
  if (actor.type === "member") return { type: "member", member_id: actor.memberId };
  return { type: actor.type, name: actor.type === "operator" ? actor.name : actor.job };
}

/** `POST /v1/inboxes/{id}/drafts`: a reply takes its To, Cc and subject from the message it answers (as the reply endpoint does); given fields replace them. */
/** A draft as written by a create or an edit: with notes on the files whose declared type was replaced. */
export type WrittenDraft = DraftRow & { attachmentNotes?: AttachmentNote[] };

export async function createDraft(actor: Actor, inboxId: string, input: z.output<typeof createDraftInput>): Promise<WrittenDraft> {
  // Files are decoded and sniffed first: a refused one changes nothing.
  const files = prepareAttachments(input.attachments);
  const headers = checkCustomHeaders(input.headers);
  let inbox: InboxRow;
  let derived: { to: string[]; cc: string[]; subject: string } = { to: [], cc: [], subject: "" };
  const parent = input.kind === "reply" || input.kind === "forward" ? await parentIn(actor, inboxId, input.in_reply_to!) : null;
  // A reply or forward draft hands the agent its parent's subject (and sender): read, as a list's subject is.
  if (parent) await recordReads(actor, [parent]);
  if (input.kind === "reply") {
    const reply = await draftForReply(actor, parent!.id, { text: "", reply_all: input.reply_all, allow_automated: input.allow_automated, attachments: [] });
    inbox = reply.inbox;
    derived = { to: reply.draft.to, cc: reply.draft.cc, subject: reply.draft.subject };
  } else {
    inbox = await getInbox(actor, inboxId);
    if (input.kind === "forward") derived.subject = /^\s*fwd?\s*:/i.test(parent!.subject) ? parent!.subject : `Fwd: ${parent!.subject}`.trim();
  }
  return transaction(async (tx) => {
    await storeBlobs(tx, inbox.workspaceId, files);
    const [row] = await tx
      .insert(drafts)
      .values({
        id: newId("draft"),
        workspaceId: inbox.workspaceId,
        inboxId: inbox.id,
        kind: input.kind,
        inReplyToMessageId: input.in_reply_to ?? null,
        to: input.to ?? derived.to,
        cc: input.cc ?? derived.cc,
        bcc: input.bcc ?? [],
        subject: input.subject ?? derived.subject,
        text: input.text,
        html: input.html ?? null,
        headers: Object.keys(headers).length ? headers : null,
        attachments: files.map(blobRef),
        createdBy: draftActor(actor),
      })
      .returning();
    await appendAudit(tx, [{ actor, action: "draft.created", resource: { type: "draft", id: row!.id }, agentId: inbox.agentId, summary: { inbox_id: inbox.id, kind: row!.kind, in_reply_to: row!.inReplyToMessageId } }]);
    await emitEvent(tx, actor, { type: "draft.created", agentId: inbox.agentId, data: draftEventPayload(row!) });
    return { ...row!, attachmentNotes: attachmentNotes(files) };
  });
}

/** The message a reply or forward draft names, which must be in the draft's inbox. */
async function parentIn(actor: Actor, inboxId: string, messageId: string): Promise<MessageRow> {
  const parent = await findMessage(actor, messageId).catch(() => null);
  if (!parent || parent.inboxId !== inboxId) {
    throw new AppError("validation_failed", `in_reply_to: no message ${messageId} in inbox ${inboxId}.`, { errors: [{ field: "in_reply_to", message: "not a message of this inbox" }] });
  }
  return parent;
}

/** `GET /v1/inboxes/{id}/drafts`: newest first. */
export async function listDrafts(actor: Actor, inboxId: string, query: z.output<typeof listDraftsQuery>) {
  await getInbox(actor, inboxId);
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(drafts.inboxId, inboxId), eq(drafts.workspaceId, actor.workspaceId)];
  if (query.status) where.push(eq(drafts.status, query.status));
  if (query.starting_after) where.push(lt(drafts.id, query.starting_after));
  const rows = await q.select().from(drafts).where(and(...where)).orderBy(desc(drafts.id)).limit(query.limit + 1);
  return page(rows, query.limit);
}

/** One draft; an agent-bound key sees only its own inboxes' drafts (others are 404). */
export async function getDraft(actor: Actor, id: string): Promise<DraftRow> {
  const q = await queryable();
  const [row] = await q.select().from(drafts).where(and(eq(drafts.id, id), eq(drafts.workspaceId, actor.workspaceId)));
  if (!row) throw notFound("draft", id);
  await getInbox(actor, row.inboxId).catch(() => {
    throw notFound("draft", id);
  });
  return row;
}

/** A draft's own file `index` (0-based), its bytes read back and checked against its hash. */
export async function draftFile(actor: Actor, id: string, index: number) {
  const row = await getDraft(actor, id);
  const ref = Number.isSafeInteger(index) && index >= 0 ? row.attachments[index] : undefined;
  if (!ref) throw notFound("attachment", `${id}/${index}`);
  const [file] = await draftFiles(row, [ref]);
  return file!;
}

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * The id of a draft's file (`att_` and 26 characters, as ids are): derived from the draft, the
 * file's place in its list and its SHA-256, so it needs no storage and stays the same until the
 * draft's files are replaced (an edit giving `attachments`), when a changed file gets a new id.
 */
export function draftAttachmentId(draftId: string, index: number, sha256: string): string {
  const digest = createHash("sha256").update(`${draftId}:${index}:${sha256}`).digest();
  let id = "";
  for (let i = 0; i < 26; i++) id += CROCKFORD[digest[i]! & 31];
  return `att_${id}`;
}

/** `GET /v1/drafts/{id}/attachments/{attachment_id}`: a draft's file by its id, scoped as the draft is (404 otherwise). */
export async function draftFileById(actor: Actor, id: string, attachmentId: string) {
  const row = await getDraft(actor, id);
  const index = row.attachments.findIndex((a, i) => draftAttachmentId(row.id, i, a.sha256) === attachmentId);
  if (index < 0) throw notFound("attachment", attachmentId);
  const [file] = await draftFiles(row, [row.attachments[index]!]);
  return file!;
}

/** `PATCH /v1/drafts/{id}`: only the version read, only while it is a draft or was returned (it is a draft again). */
export async function updateDraft(actor: Actor, id: string, version: number, input: DraftEdit): Promise<WrittenDraft> {
  const edit = await prepareDraftEdit(actor, id, input);
  const row = await transaction((tx) => writeDraftEdit(tx, actor, edit, version, null));
  return { ...row, attachmentNotes: attachmentNotes(edit.files ?? []) };
}

export type DraftEdit = Omit<z.output<typeof updateDraftInput>, "version">;
/**
 * An edit checked before any work: its files decoded and sniffed, its headers and recipient
 * count checked; `kept`: a held draft's own files, read back from its message, for a person's
 * edit that reopens it and keeps them (draft-files.ts).
 */
export type PreparedDraftEdit = { current: DraftRow; input: DraftEdit; files: PreparedAttachment[] | undefined; headers: Record<string, string> | undefined; kept?: PreparedAttachment[] };

export async function prepareDraftEdit(actor: Actor, id: string, input: DraftEdit): Promise<PreparedDraftEdit> {
  const files = input.attachments === undefined ? undefined : prepareAttachments(input.attachments);
  const current = await getDraft(actor, id);
  const headers = input.headers === undefined ? undefined : checkCustomHeaders(input.headers);
  const next = { to: input.to ?? current.to, cc: input.cc ?? current.cc, bcc: input.bcc ?? current.bcc };
  if (next.to.length + next.cc.length + next.bcc.length > 50) {
    throw new AppError("validation_failed", "At most 50 recipients in to, cc and bcc together.", { errors: [{ field: "to", message: "at most 50 recipients in to, cc and bcc together" }] });
  }
  // Only a person's edit reopens a draft held for approval (lib/domains/approvals/draft-approval.ts).
  const reopens = actor.type === "member" && current.status === "sent" && current.approvalId !== null && files === undefined;
  return { current, input, files, headers, ...(reopens ? { kept: await draftFiles(current) } : {}) };
}

/**
 * Writes an edit of the version read, inside the caller's transaction. A draft being edited is
 * `draft` or `returned`; with `heldBy`, it is a draft a person sent for approval (`sent`,
 * waiting for that approval, which the caller has just cancelled): the edit makes it a draft
 * again, no longer tied to the discarded message or the cancelled approval.
 */
export async function writeDraftEdit(tx: Transaction, actor: Actor, { current, input, files, headers, kept }: PreparedDraftEdit, version: number, heldBy: string | null): Promise<DraftRow> {
  const id = current.id;
  if (files) await storeBlobs(tx, current.workspaceId, files);
  // Reopened with its files: they are a draft's again, stored as a draft's are.
  else if (heldBy && kept) await storeBlobs(tx, current.workspaceId, kept);
  const [row] = await tx
    .update(drafts)
    .set({
      ...(files ? { attachments: files.map(blobRef) } : {}),
      ...(input.to ? { to: input.to } : {}),
      ...(input.cc ? { cc: input.cc } : {}),
      ...(input.bcc ? { bcc: input.bcc } : {}),
      ...(input.subject !== undefined ? { subject: input.subject } : {}),
      ...(input.text !== undefined ? { text: input.text } : {}),
      ...(input.html !== undefined ? { html: input.html } : {}),
      ...(headers !== undefined ? { headers: Object.keys(headers).length ? headers : null } : {}),
      ...(heldBy ? { sentMessageId: null, approvalId: null, sentAt: null } : {}),
      status: "draft",
      version: sql`${drafts.version} + 1`,
      updatedAt: sql`clock_timestamp()`,
    })
    .where(and(eq(drafts.id, id), eq(drafts.version, version), heldBy ? and(eq(drafts.status, "sent"), eq(drafts.approvalId, heldBy)) : inArray(drafts.status, EDITABLE)))
    .returning();
  if (!row) throw await refusal(tx, id, version, "edit");
  const fields = Object.keys(input).filter((k) => input[k as keyof typeof input] !== undefined);
  await appendAudit(tx, [{ actor, action: "draft.updated", resource: { type: "draft", id }, agentId: await agentOf(row), summary: { version: row.version, fields, ...(heldBy ? { reopened_from_approval: heldBy } : {}) } }]);
  return row;
}

/** `DELETE /v1/drafts/{id}`: discarded (kept, never sent); with a version, only that version. */
export async function discardDraft(actor: Actor, id: string, version?: number): Promise<DraftRow> {
  await getDraft(actor, id);
  return transaction(async (tx) => {
    const [row] = await tx
      .update(drafts)
      .set({ status: "discarded", version: sql`${drafts.version} + 1`, updatedAt: sql`clock_timestamp()` })
      .where(and(eq(drafts.id, id), version === undefined ? undefined : eq(drafts.version, version), inArray(drafts.status, EDITABLE)))
      .returning();
    if (!row) throw await refusal(tx, id, version, "discard");
    await appendAudit(tx, [{ actor, action: "draft.discarded", resource: { type: "draft", id }, agentId: await agentOf(row), summary: { version: row.version } }]);
    return row;
  });
}

/** A person sends a draft back to its agent with a note (status `returned`, the note on the draft for the agent to read). */
export async function returnDraft(actor: Actor & { type: "member" }, id: string, version: number, note: string): Promise<DraftRow> {
  await getDraft(actor, id);
  return transaction(async (tx) => {
    const [row] = await tx
      .update(drafts)
      .set({ status: "returned", reviewNote: note, version: sql`${drafts.version} + 1`, updatedAt: sql`clock_timestamp()` })
      .where(and(eq(drafts.id, id), eq(drafts.version, version), eq(drafts.status, "draft")))
      .returning();
    if (!row) throw await refusal(tx, id, version, "return");
    const agentId = await agentOf(row);
    await appendAudit(tx, [{ actor, action: "draft.returned", resource: { type: "draft", id }, agentId, summary: { version: row.version, note } }]);
    await emitEvent(tx, actor, { type: "draft.returned", agentId, data: draftEventPayload(row) });
    return row;
  });
}

/** Why a conditional change matched no row: gone (404), not in a state that allows it, or a stale version (409 with the current one). */
async function refusal(tx: Transaction | Awaited<ReturnType<typeof queryable>>, id: string, version: number | undefined, doing: "edit" | "discard" | "return" | "send"): Promise<AppError> {
  const [row] = await tx.select().from(drafts).where(eq(drafts.id, id));
  if (!row) return notFound("draft", id);
  const allowed: DraftStatus[] = doing === "return" || doing === "send" ? ["draft"] : EDITABLE;
  if (!allowed.includes(row.status)) {
    if (row.status === "sent" && row.approvalId) {
      const held = await heldRefusal(tx, row, doing);
      if (held) return held;
    }
    const why =
      row.status === "sent" ? `it was sent (message ${row.sentMessageId})` : row.status === "returned" ? "a person sent it back: edit it first (that makes it a draft again)" : `it is ${row.status}`;
    return new AppError("conflict", `Cannot ${doing} draft ${id}: ${why}.`, { reason: `draft_${row.status}`, status: row.status, message_id: row.sentMessageId });
  }
  return new AppError("conflict", `Draft ${id} changed: you have version ${version}, it is at version ${row.version}. Read it again, then retry.`, { reason: "stale_version", version: row.version });
}

/**
 * A draft sent for approval: while the approval is pending only a person's edit (on the draft's
 * page, which cancels that approval) reopens it; the agent is told how to wait, or to withdraw
 * the approval and write a new draft. Once the held message was discarded, nothing was sent.
 */
async function heldRefusal(tx: Transaction | Awaited<ReturnType<typeof queryable>>, row: DraftRow, doing: string): Promise<AppError | null> {
  const [message] = await tx.select({ status: messages.status }).from(messages).where(eq(messages.id, row.sentMessageId!));
  const details = { status: row.status, message_id: row.sentMessageId, approval_id: row.approvalId, message_status: message?.status ?? null };
  if (message?.status === "pending_approval") {
    return new AppError(
      "conflict",
      `Cannot ${doing} draft ${row.id}: it waits for a person's approval (${row.approvalId}) as message ${row.sentMessageId}, and only a person's edit on the draft's page reopens it (cancelling that approval). ` +
        `Wait for the decision (GET /v1/approvals/${row.approvalId}?wait=30, or the approval.resolved event): approved, exactly that message is sent; denied or expired, it is discarded. ` +
        `To change it yourself, withdraw the approval (POST /v1/approvals/${row.approvalId}/cancel: the held message is discarded, never sent) and write a new draft.`,
      { reason: "draft_awaiting_approval", ...details },
    );
  }
  if (message?.status === "discarded") {
    return new AppError("conflict", `Cannot ${doing} draft ${row.id}: it was sent for approval (${row.approvalId}), which was denied, expired or withdrawn, so its message ${row.sentMessageId} was discarded and nothing was sent. Write a new draft (read this one for its text).`, { reason: "draft_discarded_by_approval", ...details });
  }
  return null;
}

const agentOf = async (row: DraftRow) => {
  const q = await queryable();
  const [inbox] = await q.select({ agentId: inboxes.agentId }).from(inboxes).where(eq(inboxes.id, row.inboxId));
  return inbox?.agentId ?? null;
};

/**
 * A stored draft as a message to send: checked as a send is (a draft, with recipients and a
 * body, the inbox able to send, safe headers), a reply threaded under the message it answers.
 */
export async function composeStoredDraft(actor: Actor, row: DraftRow): Promise<{ inbox: InboxRow; draft: Draft; parent: MessageRow | null }> {
  if (row.status !== "draft") throw await refusal(await queryable(), row.id, row.version, "send");
  // A forward's subject is the original's, and its text (a note above it) may be empty.
  const forward = row.kind === "forward";
  const missing = [!row.to.length && "to", !forward && !row.subject.trim() && "subject", !forward && !row.text.length && "text"].filter((f): f is string => !!f);
  if (missing.length) throw new AppError("unprocessable_message", `Draft ${row.id} cannot be sent without ${missing.join(", ")}.`, { reason: "incomplete_draft", errors: missing.map((field) => ({ field, message: "required to send" })) });
  if (forward) {
    // A forward draft's text is the note above the forwarded message, which goes with its files.
    // Its own files go after the original's, within one message's limits together.
    const own = await filesFromBlobs(row.workspaceId, row.attachments);
    const forward = await draftForForward(actor, row.inReplyToMessageId!, { to: row.to, cc: row.cc, note: row.text || undefined, include_attachments: true, headers: row.headers ?? undefined }, own);
    return { inbox: forward.inbox, draft: { ...forward.draft, bcc: blind(row) }, parent: forward.original };
  }
  const inbox = await getInbox(actor, row.inboxId);
  await assertInboxCanSend(inbox);
  const parent = row.inReplyToMessageId ? await findMessage(actor, row.inReplyToMessageId) : null;
  return {
    inbox,
    parent,
    draft: {
      to: row.to,
      cc: row.cc.filter((a) => !row.to.includes(a)),
      bcc: blind(row),
      subject: row.subject,
      text: row.text,
      html: row.html ?? undefined,
      ...(parent && row.kind === "reply" ? { inReplyTo: parent.messageId, references: replyReferences(parent) } : { references: [] }),
      headers: checkCustomHeaders(row.headers ?? undefined),
      attachments: await filesFromBlobs(row.workspaceId, row.attachments),
    },
  };
}

/** A draft's Bcc recipients that are not already in To or Cc. */
const blind = (row: DraftRow) => [...new Set(row.bcc)].filter((a) => !row.to.includes(a) && !row.cc.includes(a));

/**
 * Inside the transaction that stores the message: the draft, still at the version that was
 * composed, becomes `sent` with the message's id. A second send (racing, or of a changed draft)
 * matches no row and is refused, rolling back its message: one draft, one message.
 */
export async function markDraftSent(tx: Transaction, actor: Actor, row: DraftRow, messageId: string, approvalId: string | null): Promise<DraftRow> {
  // The files are in the message's source now: the blobs only this draft listed go (draft-files.ts; locked before the draft row, as an edit storing them takes them).
  const blobs = await lockBlobs(tx, row.workspaceId, row.attachments.map((a) => a.sha256));
  const [sent] = await tx
    .update(drafts)
    .set({ status: "sent", sentMessageId: messageId, approvalId, sentAt: sql`clock_timestamp()`, version: sql`${drafts.version} + 1`, updatedAt: sql`clock_timestamp()` })
    .where(and(eq(drafts.id, row.id), eq(drafts.version, row.version), eq(drafts.status, "draft")))
    .returning();
  if (!sent) throw await refusal(tx, row.id, row.version, "send");
  await dropUnlistedBlobs(tx, row.workspaceId, blobs);
  const agentId = await agentOf(sent);
  await appendAudit(tx, [{ actor, action: "draft.sent", resource: { type: "draft", id: row.id }, agentId, summary: { version: row.version, message: messageId, approval_id: approvalId } }]);
  await emitEvent(tx, actor, { type: "draft.sent", agentId, data: draftEventPayload(sent) });
  return sent;
}

/** What draft events carry: the draft without its body (read it with GET /v1/drafts/{id}). */
export function draftEventPayload(d: DraftRow) {
  return {
    draft: {
      id: d.id,
      inbox_id: d.inboxId,
      kind: d.kind,
      in_reply_to: d.inReplyToMessageId,
      subject: d.subject,
      status: d.status,
      version: d.version,
      review_note: d.reviewNote,
      message_id: d.sentMessageId,
      approval_id: d.approvalId,
    },
  };
}

export function serializeDraft(d: DraftRow & { attachmentNotes?: AttachmentNote[] }) {
  return {
    id: d.id,
    object: "draft" as const,
    inbox_id: d.inboxId,
    kind: d.kind,
    in_reply_to: d.inReplyToMessageId,
    to: d.to,
    cc: d.cc,
    bcc: d.bcc,
    subject: d.subject,
    text: d.text,
    html: d.html,
    headers: d.headers ?? {},
    attachments: d.attachments.map((a, i) => ({ id: draftAttachmentId(d.id, i, a.sha256), filename: a.filename, content_type: a.content_type, size: a.size, sha256: a.sha256 })),
    ...(d.attachmentNotes?.length ? { attachment_notes: d.attachmentNotes } : {}),
    status: d.status,
    review_note: d.reviewNote,
    version: d.version,
    created_by: d.createdBy as Record<string, string | null>,
    message_id: d.sentMessageId,
    approval_id: d.approvalId,
    sent_at: d.sentAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

/** The version a request names: `If-Match` (`"3"`, `W/"3"` or `3`) or the body's `version`; both given, they must agree. */
export function versionFrom(ifMatch: string | null, bodyVersion: number | undefined): number | undefined {
  if (ifMatch === null) return bodyVersion;
  const m = /^\s*(?:W\/)?"?(\d{1,10})"?\s*$/.exec(ifMatch);
  const v = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(v) || v < 1 || v > 2_147_483_647) throw new AppError("validation_failed", `If-Match must be the draft's version, as its ETag gives it ("3").`, { errors: [{ field: "If-Match", message: "a version number" }] });
  if (bodyVersion !== undefined && bodyVersion !== v) throw new AppError("validation_failed", `If-Match (${v}) and version (${bodyVersion}) disagree.`, { errors: [{ field: "version", message: "disagrees with If-Match" }] });
  return v;
}

export const draftEtag = (d: DraftRow) => `"${d.version}"`;
