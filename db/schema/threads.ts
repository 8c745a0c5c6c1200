import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";
import { inboxes } from "./inboxes";

/** A conversation in one inbox: joined by In-Reply-To/References, else by subject and participants. */
export const threads = pgTable(
  "threads",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    inboxId: text("inbox_id")
      .notNull()
      .references(() => inboxes.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    /** Normalised subject (no Re:/Fwd:, lower case) and sorted participant addresses, for the fallback. */
    subjectKey: text("subject_key").notNull(),
    participantsKey: text("participants_key").notNull(),
    messageCount: integer("message_count").notNull().default(0),
    lastMessageAt: timestamp("last_message_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("threads_inbox_idx").on(t.inboxId, t.lastMessageAt), index("threads_fallback_idx").on(t.inboxId, t.subjectKey, t.participantsKey)],
);

export type ThreadRow = typeof threads.$inferSelect;
