import { check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

export const OUTBOUND_MAIL_STATUSES = ["queued", "sent", "captured", "failed"] as const;

/**
 * Every message the product itself sends (invitations, notifications). `sent`: handed to
 * Resend (provider_id is its id). `captured`: no mail provider configured, kept here and shown
 * in the web app's mail catcher. `queued`: written in the transaction that decided to send it,
 * delivered by the mail job (so a crash after that commit loses no mail); `failed` when Resend
 * refused it or the attempts ran out.
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
    status: text("status", { enum: OUTBOUND_MAIL_STATUSES }).notNull(),
    providerId: text("provider_id"),
    attempts: integer("attempts").notNull().default(0),
    /** While queued: when the job tries next (also its lease while an attempt runs). */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    createdAt: createdAt(),
  },
  (t) => [
    index("outbound_mail_workspace_idx").on(t.workspaceId, t.id),
    index("outbound_mail_queue_idx").on(t.nextAttemptAt).where(sql`status = 'queued'`),
    check("outbound_mail_status_check", sql`${t.status} in ('queued', 'sent', 'captured', 'failed')`),
  ],
);

export type OutboundMailRow = typeof outboundMail.$inferSelect;
