import { currentMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { draftFile, getDraft } from "@/lib/domains/mail/drafts";
import { fileResponse } from "@/lib/domains/mail/attachment-response";
import { problemResponse } from "@/lib/platform/api/problem";
import { newRequestId } from "@/lib/platform/api/request-ids";
import { AppError, notFound } from "@/lib/platform/errors";

/**
 * GET /inboxes/{id}/drafts/{draftId}/attachments/{index}: a member downloads a draft's file
 * (its bytes from the workspace's blob store, checked against its SHA-256), `attachment`
 * disposition, nosniff, sandboxed, as message attachments are served.
 */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string; draftId: string; index: string }> }): Promise<Response> {
  const requestId = newRequestId();
  try {
    const m = await currentMember();
    if (!m) throw new AppError("unauthorized", "Sign in to download attachments.");
    const { id, draftId, index } = await params;
    const actor = memberActor(m.member);
    if ((await getDraft(actor, draftId)).inboxId !== id) throw notFound("draft", draftId);
    if (!/^\d{1,2}$/.test(index)) throw notFound("attachment", `${draftId}/${index}`);
    return fileResponse(await draftFile(actor, draftId, Number(index)));
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
