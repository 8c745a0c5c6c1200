import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { messages } from "./messages";
import { threads } from "./threads";

/** A label an agent or a person put on a message (system labels are derived, never stored here). */
export const messageLabels = pgTable(
  "message_labels",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    messageId: text("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.label] }), index("message_labels_label_idx").on(t.workspaceId, t.label)],
);

/** A label on a thread as a whole. */
export const threadLabels = pgTable(
  "thread_labels",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.label] }), index("thread_labels_label_idx").on(t.workspaceId, t.label)],
);
