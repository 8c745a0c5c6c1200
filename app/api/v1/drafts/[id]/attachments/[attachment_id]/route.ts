import { withApiKey } from "@/lib/platform/api/with-api-key";
import { getDraftAttachmentOp } from "@/lib/domains/mail/draft-operations";
import { draftFileById } from "@/lib/domains/mail/drafts";
import { fileResponse } from "@/lib/domains/mail/attachment-response";

// GET /api/v1/drafts/{id}/attachments/{attachment_id} — download a draft's file
export const GET = withApiKey(getDraftAttachmentOp, async ({ actor, params }) => fileResponse(await draftFileById(actor, params.id!, params.attachment_id!)));
