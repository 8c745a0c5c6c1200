import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * `pending`: registered with Resend, waiting for its DNS records; `verified`: Resend saw them,
 * inboxes on it send; `failed`: Resend gave up (or 72 h passed); `capture_only`: no
 * RESEND_API_KEY, nothing is verified and mail on it is only captured.
 */
export const MAIL_DOMAIN_STATUSES = ["pending", "verified", "failed", "capture_only"] as const;
export type MailDomainStatus = (typeof MAIL_DOMAIN_STATUSES)[number];

/** One DNS record the domain's owner creates, as Resend lists it, with Resend's state of it. */
export type MailDomainRecord = {
  record: string;
  name: string;
  type: string;
  value: string;
  ttl: string;
  priority: number | null;
  status: string;
};

/** A workspace's own mail domain (`support.acme.com`). A name belongs to one workspace, whatever its case. */
export const mailDomains = pgTable(
  "mail_domains",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    /** Lower-case ASCII (IDNs in punycode), no trailing dot. */
    name: text("name").notNull(),
    status: text("status", { enum: MAIL_DOMAIN_STATUSES }).notNull(),
    /** Resend's id of the domain; null until it is registered there (and always in capture mode). */
    providerId: text("provider_id"),
    records: jsonb("records").$type<MailDomainRecord[]>().notNull().default([]),
    /** The scheduled re-check: checks made so far in this round, and when the next is due (null: none). */
    checkAttempts: integer("check_attempts").notNull().default(0),
    nextCheckAt: timestamp("next_check_at", { withTimezone: true, mode: "date" }),
    /** When the current round of checks began (creation or the last on-demand verify); it ends 72 h later. */
    checksStartedAt: timestamp("checks_started_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
    lastCheckedAt: timestamp("last_checked_at", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    verifiedAt: timestamp("verified_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("mail_domains_name_key").on(sql`lower(${t.name})`),
    index("mail_domains_workspace_idx").on(t.workspaceId, t.id),
    index("mail_domains_due_idx").on(t.nextCheckAt).where(sql`${t.status} = 'pending' and ${t.nextCheckAt} is not null`),
    check("mail_domains_name_length", sql`char_length(${t.name}) between 3 and 253`),
  ],
);

export type MailDomainRow = typeof mailDomains.$inferSelect;
