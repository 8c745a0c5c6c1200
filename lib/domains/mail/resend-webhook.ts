import { and, eq, inArray } from "drizzle-orm";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { transaction } from "../../../db/transaction";
import { inboxes, messages, type MessageRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { env } from "../../platform/config/env";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { readBody } from "../../platform/api/read-body";
import { ingestMessage, rejectOversizeMail, type Delivery } from "./inbound/ingest-message";
import { resendClient } from "./resend-client";
import { downloadFromResend } from "./resend-download";
import { messageEventPayload } from "./serialize";

type ResendEvent = { type: string; created_at: string; data: Record<string, unknown> & { email_id?: string } };
type Outcome = { object: "resend_webhook_result"; type: string; handled: boolean; detail: string; deliveries?: Delivery[] };

/** Events are small; received mail is fetched from Resend's API, not carried in the webhook. */
const WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Verifies a Resend webhook (Svix: `svix-id`, `svix-timestamp`, `svix-signature`; Standard Webhooks names accepted too). */
export function verifyResendWebhook(body: string, headers: Headers): ResendEvent {
  const secret = env().RESEND_WEBHOOK_SECRET;
  if (!secret) {
    throw new AppError("service_unavailable", "Resend webhooks are disabled: set RESEND_WEBHOOK_SECRET to the webhook's signing secret (whsec_...) from Resend's dashboard.");
  }
  const h = (name: string) => headers.get(`svix-${name}`) ?? headers.get(`webhook-${name}`) ?? "";
  try {
    return new Webhook(secret).verify(body, { "webhook-id": h("id"), "webhook-timestamp": h("timestamp"), "webhook-signature": h("signature") }) as ResendEvent;
  } catch (err) {
    if (err instanceof WebhookVerificationError) {
      throw new AppError("unauthorized", `The Resend webhook signature does not verify (${err.message}). Check RESEND_WEBHOOK_SECRET.`);
    }
    throw err;
  }
}

/**
 * POST /api/inbound/resend: one endpoint for all of Resend's webhooks. `email.received` fetches
 * the full message (its raw MIME) from Resend's API into the one ingestion function; delivery
 * events move an outbound message's status forward (never back) and a bounce emits `email.bounced`.
 * Redelivered webhooks change nothing twice.
 */
export async function receiveResendWebhook(req: Request): Promise<Outcome> {
  const body = await readBody(req, WEBHOOK_BODY_LIMIT);
  const event = verifyResendWebhook(body, req.headers);
  const emailId = typeof event.data?.email_id === "string" ? event.data.email_id : null;
  if (!emailId) return { object: "resend_webhook_result", type: event.type, handled: false, detail: "not an email event: ignored" };
  switch (event.type) {
    case "email.received":
      return { object: "resend_webhook_result", type: event.type, handled: true, detail: "ingested", deliveries: await ingestFromResend(emailId, event.data) };
    case "email.sent":
    case "email.delivered":
    case "email.bounced":
    case "email.failed":
    case "email.suppressed":
    case "email.delivery_delayed":
    case "email.complained":
      return { object: "resend_webhook_result", type: event.type, handled: true, detail: await recordDelivery(emailId, event) };
    default:
      return { object: "resend_webhook_result", type: event.type, handled: false, detail: "event type not used by AgentDraft: ignored" };
  }
}

/** Fetches a received message from Resend (raw MIME when offered, else rebuilt from its parts) and ingests it. */
async function ingestFromResend(emailId: string, data: Record<string, unknown>): Promise<Delivery[]> {
  const resend = resendClient();
  if (!resend) throw new AppError("service_unavailable", "Set RESEND_API_KEY: received mail is fetched from Resend's API by its id.");
  const { data: email, error } = await resend.emails.receiving.get(emailId);
  if (error || !email) {
    // A 5xx here makes Resend retry the webhook later; a message it no longer has cannot be fetched.
    if (error?.statusCode === 404) throw new AppError("not_found", `Resend has no received email ${emailId}.`);
    throw new AppError("service_unavailable", `Could not fetch received email ${emailId} from Resend: ${error?.message ?? "no data"}`, {}, { "retry-after": "30" });
  }
  const recipients = (email.received_for?.length ? email.received_for : Array.isArray(data.to) ? (data.to as string[]) : email.to).map((a) => a.toLowerCase());
  // Fetched, not posted: bounded by RESEND_INBOUND_MAX_BYTES, not by the request-body limit behind MAIL_MAX_BYTES.
  const maxBytes = env().RESEND_INBOUND_MAX_BYTES;
  let raw: Buffer;
  if (email.raw?.download_url) {
    const download = await downloadFromResend(email.raw.download_url, maxBytes);
    if (download.kind === "too_large") {
      return rejectOversizeMail(Buffer.from(`To: ${recipients.join(", ")}\r\n\r\n`), download.bytes, { recipients, source: "resend", maxBytes });
    }
    raw = download.raw;
  } else {
    raw = await new MailComposer({
      from: email.from,
      to: email.to,
      cc: email.cc ?? undefined,
      replyTo: email.reply_to ?? undefined,
      subject: email.subject,
      text: email.text ?? undefined,
      html: email.html ?? undefined,
      messageId: email.message_id,
      date: new Date(email.created_at),
      headers: Object.fromEntries(Object.entries(email.headers ?? {}).filter(([k]) => /^(in-reply-to|references|auto-submitted|precedence|list-id|authentication-results|x-autoreply)$/i.test(k))),
    })
      .compile()
      .build();
  }
  return ingestMessage(raw, { recipients, source: "resend", maxBytes });
}

/** Which statuses a delivery event may move a message from: forward only, so late or repeated events change nothing. */
const TRANSITIONS: Record<string, { to: MessageRow["status"]; from: MessageRow["status"][] }> = {
  "email.sent": { to: "sent", from: ["queued"] },
  "email.delivered": { to: "delivered", from: ["queued", "sent"] },
  "email.bounced": { to: "bounced", from: ["queued", "sent", "delivered"] },
  "email.failed": { to: "failed", from: ["queued", "sent"] },
  "email.suppressed": { to: "failed", from: ["queued", "sent"] },
};

async function recordDelivery(emailId: string, event: ResendEvent): Promise<string> {
  return transaction(async (tx) => {
    const [message] = await tx.select().from(messages).where(and(eq(messages.providerId, emailId), eq(messages.direction, "outbound"))).for("update");
    if (!message) return "no agent message with this Resend id (system mail, or another deployment): ignored";
    const [inbox] = await tx.select({ agentId: inboxes.agentId }).from(inboxes).where(eq(inboxes.id, message.inboxId));
    const actor: Actor = { type: "system", workspaceId: message.workspaceId, job: "resend-webhook", traceId: message.traceId ?? undefined };
    const step = TRANSITIONS[event.type];
    const detail = describe(event);
    if (!step) {
      await appendAudit(tx, [{ actor, action: event.type.replace("email.", "email.provider_"), resource: { type: "message", id: message.id }, agentId: inbox?.agentId, summary: { provider_id: emailId, detail } }]);
      return `recorded ${event.type}`;
    }
    const [moved] = await tx
      .update(messages)
      .set({ status: step.to, ...(detail ? { lastError: detail } : {}), nextSendAt: null })
      .where(and(eq(messages.id, message.id), inArray(messages.status, step.from)))
      .returning();
    if (!moved) return `already ${message.status}: unchanged`;
    if (step.to === "bounced") {
      await emitEvent(tx, actor, { type: "email.bounced", agentId: inbox?.agentId, data: { ...messageEventPayload(moved), bounce: event.data.bounce ?? null } });
    }
    await appendAudit(tx, [
      {
        actor,
        action: `email.${step.to}`,
        resource: { type: "message", id: message.id },
        agentId: inbox?.agentId,
        outcome: step.to === "bounced" || step.to === "failed" ? "failed" : "succeeded",
        summary: { provider_id: emailId, from_status: message.status, detail },
      },
    ]);
    return `${message.status} → ${step.to}`;
  });
}

/** The human-readable reason a delivery event carries (bounce, failure, suppression), if any. */
function describe(event: ResendEvent): string | null {
  const d = event.data as { bounce?: { message?: string; type?: string; subType?: string }; failed?: { reason?: string }; suppressed?: { message?: string; type?: string } };
  if (d.bounce) return [d.bounce.type, d.bounce.subType, d.bounce.message].filter(Boolean).join(": ");
  if (d.failed?.reason) return d.failed.reason;
  if (d.suppressed) return [d.suppressed.type, d.suppressed.message].filter(Boolean).join(": ");
  return null;
}
