import { receiveResendWebhook } from "@/lib/mail/resend-webhook";
import { problemResponse } from "@/lib/api/problem";
import { newRequestId } from "@/lib/api/request-ids";

// POST /api/inbound/resend — Resend's webhooks (signed, Svix): received mail, delivery and bounces
export async function POST(req: Request) {
  const requestId = newRequestId();
  try {
    return Response.json(await receiveResendWebhook(req), { headers: { "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
