import { currentMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { findMessage, getAttachment } from "@/lib/domains/mail/read-mail";
import { attachmentResponse } from "@/lib/domains/mail/attachment-response";
import { problemResponse } from "@/lib/platform/api/problem";
import { newRequestId } from "@/lib/platform/api/request-ids";
import { AppError, notFound } from "@/lib/platform/errors";

/**
 * GET /inboxes/{id}/messages/{messageId}/attachments/{attachmentId}: a member downloads an
 * attachment of received or sent mail from the thread page, as the API serves it (streamed from
 * the message's source, `attachment` disposition, nosniff, sandboxed).
 */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string; messageId: string; attachmentId: string }> }): Promise<Response> {
  const requestId = newRequestId();
  try {
    const m = await currentMember();
    if (!m) throw new AppError("unauthorized", "Sign in to download attachments.");
    const { id, messageId, attachmentId } = await params;
    const actor = memberActor(m.member);
    if ((await findMessage(actor, messageId)).inboxId !== id) throw notFound("message", messageId);
    return await attachmentResponse(await getAttachment(actor, messageId, attachmentId));
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
