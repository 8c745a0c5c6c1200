import { z } from "zod";
import { transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { outboundMail } from "../../../db/schema";
import { env } from "../../platform/config/env";
import { resendClient } from "./resend-client";
import { capturesOutbound } from "../../platform/config/preview";
import { newId } from "../../platform/ids";
import { resendTransport } from "./resend-transport";
import type { MailTransport } from "./mail-transport";

export type { MailTransport };
import { scheduleWork } from "../../platform/jobs/schedule";

export const outgoingMail = z.object({
  workspaceId: z.string().min(1),
  to: z.union([z.email(), z.array(z.email()).min(1).max(50)]),
  subject: z.string().trim().min(1).max(300),
  text: z.string().min(1),
  html: z.string().optional(),
  /** Defaults to MAIL_FROM. */
  from: z.string().min(3).optional(),
  /** What the mail is for, e.g. `invitation`. */
  kind: z.string().min(1).max(50),
});
export type OutgoingMail = z.input<typeof outgoingMail>;

export type SentMail = { id: string; status: "sent" | "captured" };

/** Resend when RESEND_API_KEY is set; otherwise null, and mail is captured. A preview deployment captures it too, unless told to send mail. */
export function configuredTransport(): MailTransport | null {
  if (capturesOutbound("mail")) return null;
  const client = resendClient();
  return client ? resendTransport(client) : null;
}

/**
 * The one way the product sends mail. With a transport the message goes out and is recorded
 * as `sent`; without one it is recorded as `captured`, for the web app's mail catcher.
 * Call it after the transaction that decided to send has committed: a provider call must
 * not hold a transaction open, and a rolled-back change must not have sent mail.
 */
export async function sendMail(
  input: OutgoingMail,
  transport: MailTransport | null = configuredTransport(),
  opts: { secrets?: string[] } = {},
): Promise<SentMail> {
  const row = mailRow(input);
  const sent = transport ? await transport({ from: row.from, to: row.to, subject: row.subject, text: row.text, html: row.html ?? undefined }) : null;
  const status = sent ? "sent" : "captured";
  // Mail that really went out keeps no copy of its secrets (an invitation's token): only its
  // recipient can read them. Captured mail keeps them: there, the catcher is how it is delivered.
  const kept = sent ? { ...row, text: redact(row.text, opts.secrets), html: row.html === null ? null : redact(row.html, opts.secrets) } : row;
  await transaction((tx) => tx.insert(outboundMail).values({ ...kept, status, providerId: sent?.providerId ?? null }));
  return { id: row.id, status };
}

export const REDACTED = "[redacted: delivered only to the recipient]";
const redact = (text: string, secrets: string[] = []) => secrets.filter(Boolean).reduce((t, s) => t.split(s).join(REDACTED), text);

/**
 * Mail decided inside a transaction (notifications from background jobs): written with the
 * change that decided it, as `queued` for the mail job (deliverSystemMail) when a provider is
 * configured, else `captured` at once. A crash after the commit delays the mail, never loses
 * it; a rollback never sends it.
 */
export async function queueMail(tx: Transaction, input: OutgoingMail): Promise<{ id: string; ids: string[]; status: "queued" | "captured" }> {
  // Notices built from tenant input never fail to be written: the subject is clamped here, and
  // many recipients become several messages of at most MAX_RECIPIENTS each.
  const to = [...new Set(Array.isArray(input.to) ? input.to : [input.to])];
  const chunks = Array.from({ length: Math.ceil(to.length / MAX_RECIPIENTS) }, (_, i) => to.slice(i * MAX_RECIPIENTS, (i + 1) * MAX_RECIPIENTS));
  const rows = chunks.map((chunk) => mailRow({ ...input, to: chunk, subject: clampSubject(input.subject) }));
  const status: "queued" | "captured" = configuredTransport() ? "queued" : "captured";
  const at = new Date();
  await tx.insert(outboundMail).values(rows.map((row) => ({ ...row, status, nextAttemptAt: status === "queued" ? at : null })));
  if (status === "queued") scheduleWork(SYSTEM_MAIL_KIND, rows.map((r) => ({ id: r.id, workspaceId: r.workspaceId, dueAt: at })));
  return { id: rows[0]!.id, ids: rows.map((r) => r.id), status };
}

/** One mail's recipients at most (Resend's limit); more are split into several mails. */
export const MAX_RECIPIENTS = 50;
const SUBJECT_MAX = 300;
/** The work kind that hands one queued system mail to the provider (lib/composition/job-kinds.ts). */
export const SYSTEM_MAIL_KIND = "mail.deliver-system";

function clampSubject(subject: string): string {
  const oneLine = subject.replace(/[\r\n]+/g, " ").trim();
  return oneLine.length <= SUBJECT_MAX ? oneLine : `${oneLine.slice(0, SUBJECT_MAX - 1)}…`;
}

/** A validated message as an outbound_mail row, before its status is known. */
function mailRow(input: OutgoingMail) {
  const mail = outgoingMail.parse(input);
  return {
    id: newId("outboundMail"),
    workspaceId: mail.workspaceId,
    from: mail.from ?? env().MAIL_FROM,
    to: Array.isArray(mail.to) ? mail.to : [mail.to],
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    kind: mail.kind,
  };
}
