import { check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { inboxes } from "./inboxes";

export const DRAFT_KINDS = ["new", "reply", "forward"] as const;
export type DraftKind = (typeof DRAFT_KINDS)[number];
/** draft: editable; sent: handed to the send path once (its message may wait for approval); returned: a person sent it back with a note (editable again); discarded. */
export const DRAFT_STATUSES = ["draft", "sent", "returned", "discarded"] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

/** Who wrote or last changed a draft: the key (and its agent) or the member, as audit entries name them. */
/** A file on a draft: its bytes are in attachment_blobs (once per workspace, by SHA-256). */
export type DraftAttachment = { filename: string; content_type: string; size: number; sha256: string };

export type DraftActor = { type: "key"; key_id: string; agent_id: string | null } | { type: "member"; member_id: string } | { type: "operator" | "system"; name: string };

/**
 * Mail an agent (or a person) is still writing: kept editable until it is sent, sent back with a
 * note, or discarded. `version` counts edits (optimistic concurrency: a change names the version it
 * read). Sending goes through the one send path; the message it became is `sent_message_id`.
 */
export const drafts = pgTable(
  "drafts",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    inboxId: text("inbox_id")
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: DRAFT_KINDS }).notNull(),
    /** reply and forward: the message (msg_...) answered or forwarded. */
    inReplyToMessageId: text("in_reply_to_message_id"),
    to: text("to").array().notNull().default([]),
    cc: text("cc").array().notNull().default([]),
    bcc: text("bcc").array().notNull().default([]),
    subject: text("subject").notNull().default(""),
    text: text("text").notNull().default(""),
    html: text("html"),
    /** Custom headers for the message, checked again when it is sent. */
    headers: jsonb("headers").$type<Record<string, string>>(),
    /** The draft's own files, in order (a forward also sends the original's): refs to attachment_blobs. */
    attachments: jsonb("attachments").$type<DraftAttachment[]>().notNull().default([]),
    status: text("status", { enum: DRAFT_STATUSES }).notNull().default("draft"),
    /** Why a person sent it back (status returned), for the agent to read. */
    reviewNote: text("review_note"),
    version: integer("version").notNull().default(1),
    createdBy: jsonb("created_by").$type<DraftActor>().notNull(),
    /** The message it became, and the approval that message waits for when a policy held it. */
    sentMessageId: text("sent_message_id"),
    approvalId: text("approval_id"),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    index("drafts_inbox_idx").on(t.inboxId, t.id),
    index("drafts_workspace_idx").on(t.workspaceId, t.id),
    check("drafts_kind_check", sql`${t.kind} in ('new', 'reply', 'forward')`),
    check("drafts_status_check", sql`${t.status} in ('draft', 'sent', 'returned', 'discarded')`),
    check("drafts_parent_check", sql`(${t.kind} = 'new') = (${t.inReplyToMessageId} is null)`),
    check("drafts_sent_check", sql`(${t.status} = 'sent') = (${t.sentMessageId} is not null)`),
  ],
);

export type DraftRow = typeof drafts.$inferSelect;
