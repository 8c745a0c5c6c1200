import { boolean, customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { inboxes } from "./inboxes";
import { threads } from "./threads";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

export type Address = { name: string | null; email: string };
export type MessageSecurity = {
  zero_width_removed: number;
  scripts_removed: boolean;
  styles_removed: boolean;
  hidden_text_removed: boolean;
  remote_images_removed: number;
  forms_removed: boolean;
  iframes_removed: boolean;
  injection_signals: { signal: string; excerpt: string; where: string }[];
  auth_failed: boolean;
  /** Mail from an inbox here whose agent was tainted by untrusted mail when it sent it (SPEC §13): it is untrusted in turn. */
  tainted_sender?: boolean;
  /** Received mail whose sender is not inside the workspace (not a member, an inbox of it, or at a domain its admins trust): untrusted (SPEC §13). */
  sender_outside?: boolean;
};

/** pending_approval: composed and stored, waiting for a person (SPEC §13); discarded: denied or expired, never sent. */
export const MESSAGE_STATUSES = ["received", "captured", "queued", "sent", "delivered", "bounced", "failed", "pending_approval", "discarded"] as const;

/** One email in one inbox, received or sent, stored once per (inbox, Message-ID). */
export const messages = pgTable(
  "messages",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    inboxId: text("inbox_id")
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    direction: text("direction", { enum: ["inbound", "outbound"] }).notNull(),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    messageId: text("message_id").notNull(),
    inReplyTo: text("in_reply_to"),
    references: text("references").array().notNull().default([]),
    from: jsonb("from").$type<Address>().notNull(),
    to: jsonb("to").$type<Address[]>().notNull(),
    cc: jsonb("cc").$type<Address[]>().notNull(),
    /** Outbound: the Bcc recipients, kept here only (never in the message's headers or source); received mail: empty. */
    bcc: jsonb("bcc").$type<Address[]>().notNull().default([]),
    subject: text("subject").notNull(),
    date: timestamp("date", { withTimezone: true, mode: "date" }),
    text: text("text").notNull(),
    textReply: text("text_reply").notNull(),
    /** The new text without quoted history and signature, computed at ingest; null: not computed (mail stored before it was). */
    extractedText: text("extracted_text"),
    /** The same cut in html_sanitized, where the message has HTML. */
    extractedHtml: text("extracted_html"),
    /** Why extracted_text is the full text instead ("error", "too_large"); null when extraction worked. */
    extractionFallback: text("extraction_fallback", { enum: ["error", "too_large"] }),
    /** Received mail the inbox's agent has not opened yet (the `unread` label). Mail stored before reads were tracked counts as read. */
    unread: boolean("unread").notNull().default(false),
    markdown: text("markdown").notNull(),
    htmlSanitized: text("html_sanitized"),
    headersOfNote: jsonb("headers_of_note").$type<Record<string, string | null>>().notNull(),
    security: jsonb("security").$type<MessageSecurity>().notNull(),
    automated: boolean("automated").notNull(),
    automatedReasons: text("automated_reasons").array().notNull().default([]),
    sizeBytes: integer("size_bytes").notNull(),
    /** text, markdown or html_sanitized was cut at MAIL_MAX_BODY_CHARS; the whole message is its raw source. */
    bodyTruncated: boolean("body_truncated").notNull().default(false),
    /** Outbound only: the HTML as the agent wrote it, sent as is (html_sanitized is what is shown). */
    htmlBody: text("html_body"),
    /** Outbound only: the custom headers the agent added (In-Reply-To, References and Message-ID come from their columns). */
    customHeaders: jsonb("custom_headers").$type<Record<string, string>>(),
    /** Outbound only: the provider's id (Resend's email id), matched by its delivery webhooks. */
    providerId: text("provider_id"),
    /** Outbound only: delivery attempts, the next one (also a lease while one runs), and the last failure or bounce. */
    sendAttempts: integer("send_attempts").notNull().default(0),
    nextSendAt: timestamp("next_send_at", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    /** The trace of the request that sent it, so the delivery job's audit entries join the same trace. */
    traceId: text("trace_id"),
    /** Outbound mail that waits for a person: the approval that releases (or discards) exactly these bytes. */
    approvalId: text("approval_id"),
    /** A forward: the message it forwards (msg_...), whose thread it joins in the sending inbox. */
    forwardedFromId: text("forwarded_from_id"),
    search: tsvector("search").generatedAlwaysAs(sql`to_tsvector('simple', left(coalesce(subject, ''), 1000) || ' ' || left(coalesce(text, ''), 65536))`),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("messages_inbox_message_id_key").on(t.inboxId, t.messageId),
    index("messages_inbox_idx").on(t.inboxId, t.id),
    index("messages_thread_idx").on(t.threadId, t.id),
    index("messages_search_idx").using("gin", t.search),
    index("messages_provider_idx").on(t.providerId),
    // Taint checks find the received message a request's trace starts at (lib/domains/approvals/trace-taint.ts).
    index("messages_inbound_trace_idx").on(t.workspaceId, t.traceId).where(sql`direction = 'inbound'`),
    index("messages_approval_idx").on(t.approvalId).where(sql`approval_id is not null`),
    index("messages_send_queue_idx").on(t.nextSendAt).where(sql`status = 'queued'`),
    index("messages_unread_idx").on(t.inboxId, t.id).where(sql`unread`),
  ],
);

export type MessageRow = typeof messages.$inferSelect;
