import { and, eq, inArray } from "drizzle-orm";
import { queryable, transaction } from "../../../../db/transaction";
import { inboxes, messages, type InboxRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { newId } from "../../../platform/ids";
import type { Actor } from "../../../platform/actor";
import { appendAudit } from "../../../platform/audit/append-audit";
import { emitEvent } from "../../../platform/events/emit-event";
import { messageEventPayload } from "../serialize";
import { parsedColumns, storeAttachments } from "../store-message";
import { encodeSource, storeSource, type EncodedSource } from "../message-source";
import { lockInbox, resolveThread } from "../threading";
import { recipientsInHeaders, type ParsedMessage } from "./parse-message";
import { parseMessageOffThread } from "./parse-pool";
import { senderRefused } from "./sender-rules";
import { rejectionReason, type RejectionReason } from "./mail-limits";
import type { SenderAuth } from "./sender-auth";
import { senderInside } from "../../taint";

export type IngestSource = "raw" | "smtp" | "resend" | "local";
export type Delivery = { inbox_id: string; address: string; message_id: string | null; thread_id: string | null; duplicate: boolean; refused: string | null };


const systemActor = (workspaceId: string, source: IngestSource): Actor => ({ type: "system", workspaceId, job: `inbound-${source}` });

export async function inboxesFor(addresses: string[]): Promise<InboxRow[]> {
  const wanted = [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return [];
  const q = await queryable();
  return q.select().from(inboxes).where(inArray(inboxes.address, wanted));
}

/**
 * Stores one received message for one inbox: sender rules, duplicate check, thread, attachments,
 * email.received and the audit entry. Inside an open transaction it joins it (local delivery).
 */
export async function storeForInbox(inbox: InboxRow, m: ParsedMessage, raw: EncodedSource, source: IngestSource, traceId?: string): Promise<Delivery> {
  const base = { inbox_id: inbox.id, address: inbox.address };
  // Each received message starts a trace (mail between inboxes here keeps the sender's); the agent continues it (x-trace-id) in what it does about it.
  const actor = { ...systemActor(inbox.workspaceId, source), traceId: traceId ?? newId("trace") };
  const refused = senderRefused(m.from.email, inbox.allowSenders, inbox.blockSenders, m.headersOfNote.dmarc ?? null);
  if (refused) {
    await transaction((tx) =>
      appendAudit(tx, [
        { actor, action: "email.refused", resource: { type: "inbox", id: inbox.id }, agentId: inbox.agentId, outcome: "rejected", summary: { from: m.from.email, message_id: m.messageId, reason: refused } },
      ]),
    );
    return { ...base, message_id: null, thread_id: null, duplicate: false, refused };
  }
  return transaction(async (tx) => {
    // One ingestion at a time per inbox: duplicates and thread creation cannot race.
    await lockInbox(tx, inbox.id);
    const [existing] = await tx
      .select({ id: messages.id, threadId: messages.threadId })
      .from(messages)
      .where(and(eq(messages.inboxId, inbox.id), eq(messages.messageId, m.messageId)));
    if (existing) return { ...base, message_id: existing.id, thread_id: existing.threadId, duplicate: true, refused: null };

    const at = new Date();
    const threadId = await resolveThread(tx, inbox, m, at);
    const [message] = await tx
      .insert(messages)
      .values({
        id: newId("message"),
        workspaceId: inbox.workspaceId,
        inboxId: inbox.id,
        threadId,
        direction: "inbound",
        status: "received",
        ...parsedColumns(m),
        // Judged here, once: whether the sender is inside this workspace (mail from outside is untrusted, SPEC §13).
        security: { ...m.security, sender_outside: !(await senderInside(tx, inbox.workspaceId, m.from.email)) },
        unread: true,
        traceId: actor.traceId,
        createdAt: at,
      })
      .returning();
    await storeSource(tx, message!.id, raw);
    const stored = await storeAttachments(tx, message!, m);
    await emitEvent(tx, actor, { type: "email.received", agentId: inbox.agentId, data: messageEventPayload(message!, stored) });
    await appendAudit(tx, [
      {
        actor,
        action: "email.received",
        resource: { type: "message", id: message!.id },
        agentId: inbox.agentId,
        summary: { inbox_id: inbox.id, from: m.from.email, message_id: m.messageId, sha256: m.sha256, automated: m.automated, injection_signals: m.security.injection_signals.length },
      },
    ]);
    return { ...base, message_id: message!.id, thread_id: threadId, duplicate: false, refused: null };
  });
}

/**
 * The one way mail gets in (raw endpoint, Resend webhook, SMTP listener): size check, parse
 * and sanitise, route to inboxes by the given recipients (else the message's own), then store
 * once per inbox and Message-ID with its thread, attachments, outbox event and audit entry.
 * Oversize mail (over `maxBytes`: MAIL_MAX_BYTES unless the source has its own bound) is refused
 * whole, with an audit entry in each addressed workspace.
 */
export async function ingestMessage(raw: Buffer, opts: { recipients?: string[]; source: IngestSource; senderAuth?: SenderAuth; maxBytes?: number }): Promise<Delivery[]> {
  if (raw.length > (opts.maxBytes ?? env().MAIL_MAX_BYTES)) return rejectOversizeMail(raw, raw.length, opts);
  const parsed = await parseMessageOffThread(raw, { senderAuth: opts.senderAuth }).catch(async (err: unknown) => {
    const reason = rejectionReason(err);
    if (reason) await auditRejection(raw, { reason, size_bytes: raw.length, limit: (err as AppError).extra.limit ?? null }, opts);
    throw err;
  });
  const targets = await inboxesFor(opts.recipients?.length ? opts.recipients : parsed.recipients);
  if (!targets.length) {
    throw new AppError("not_found", `No inbox for ${(opts.recipients?.length ? opts.recipients : parsed.recipients).join(", ") || "this message (it names no recipients)"}.`);
  }
  const source = await encodeSource(raw, parsed.sha256);
  const out: Delivery[] = [];
  for (const inbox of targets) out.push(await storeForInbox(inbox, parsed, source, opts.source));
  return out;
}

/**
 * Refuses mail over MAIL_MAX_BYTES whole: nothing is stored, and each addressed inbox's
 * workspace gets an audit entry. `head` is the message or its first bytes (for the headers).
 */
export async function rejectOversizeMail(head: Buffer, size: number, opts: { recipients?: string[]; source: IngestSource; maxBytes?: number }): Promise<never> {
  const limit = opts.maxBytes ?? env().MAIL_MAX_BYTES;
  await auditRejection(head, { reason: "too_large", size_bytes: size, limit_bytes: limit }, opts);
  const setting = opts.source === "resend" ? "RESEND_INBOUND_MAX_BYTES" : "MAIL_MAX_BYTES";
  throw new AppError("payload_too_large", `The message is over the ${limit}-byte limit (${setting}). Nothing was stored.`, { limit_bytes: limit });
}

/** An `email.rejected` audit entry in the workspace of each inbox the refused message was for. */
async function auditRejection(head: Buffer, summary: { reason: RejectionReason; [k: string]: unknown }, opts: { recipients?: string[]; source: IngestSource }): Promise<void> {
  const targets = await inboxesFor(opts.recipients?.length ? opts.recipients : await recipientsInHeaders(head));
  for (const inbox of targets) {
    await transaction((tx) =>
      appendAudit(tx, [
        {
          actor: systemActor(inbox.workspaceId, opts.source),
          action: "email.rejected",
          resource: { type: "inbox", id: inbox.id },
          agentId: inbox.agentId,
          outcome: "rejected",
          summary,
        },
      ]),
    );
  }
}
