import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
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
