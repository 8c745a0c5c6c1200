import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { bytea } from "./message-sources";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { messages } from "./messages";

export const attachments = pgTable(
  "attachments",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    messageId: text("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    filename: text("filename"),
    contentType: text("content_type").notNull(),
    contentId: text("content_id"),
    disposition: text("disposition"),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    /** Its place among the message's attachments as the parser lists them: the bytes are read from the message's source. */
    partIndex: integer("part_index").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("attachments_message_idx").on(t.messageId)],
);

export type AttachmentRow = typeof attachments.$inferSelect;

/**
 * The bytes of drafts' files, stored once per workspace by their SHA-256 (the same file on two
 * drafts is one row), while a draft that is not sent lists them: a message's files are in its
 * source, which the delivery job reads them out of (lib/domains/mail/draft-files.ts). Rows
 * from before that also hold files sent without a draft; nothing reads those.
 */
export const attachmentBlobs = pgTable(
  "attachment_blobs",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    sha256: text("sha256").notNull(),
    size: integer("size").notNull(),
    /** Sniffed from the bytes, never the caller's word. */
    contentType: text("content_type").notNull(),
    bytes: bytea("bytes").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.sha256] })],
);
