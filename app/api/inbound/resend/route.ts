import { receiveResendWebhook } from "@/lib/domains/mail/resend-webhook";
import { plainJsonRoute } from "@/lib/platform/api/plain-route";

// POST /api/inbound/resend — Resend's webhooks (signed, Svix): received mail, delivery and bounces
export const POST = plainJsonRoute(receiveResendWebhook);
