import { withApiKey } from "@/lib/platform/api/with-api-key";
import { getAttachmentOp } from "@/lib/domains/mail/operations";
import { getAttachment } from "@/lib/domains/mail/read-mail";
import { attachmentResponse } from "@/lib/domains/mail/attachment-response";

// GET /api/v1/messages/{id}/attachments/{attachment_id} — download an attachment
export const GET = withApiKey(getAttachmentOp, async ({ actor, params }) =>
  attachmentResponse(await getAttachment(actor, params.id!, params.attachment_id!)),
);
