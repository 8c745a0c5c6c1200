import { check, index, pgTable, text } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * Every message the product sends. `sent`: handed to Resend (provider_id is its id).
 * `captured`: no mail provider configured, kept here and shown in the web app's mail catcher.
 */
export const outboundMail = pgTable(
  "outbound_mail",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    from: text("from").notNull(),
    to: text("to").array().notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    /** What the mail is for (`invitation`, ...), for filtering. */
    kind: text("kind").notNull(),
    status: text("status", { enum: ["sent", "captured"] }).notNull(),
    providerId: text("provider_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("outbound_mail_workspace_idx").on(t.workspaceId, t.id),
    check("outbound_mail_status_check", sql`${t.status} in ('sent', 'captured')`),
  ],
);

export type OutboundMailRow = typeof outboundMail.$inferSelect;
