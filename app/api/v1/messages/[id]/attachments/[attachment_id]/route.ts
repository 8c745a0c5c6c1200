import { withApiKey } from "@/lib/api/with-api-key";
import { getAttachmentOp } from "@/lib/mail/operations";
import { getAttachment } from "@/lib/mail/read-mail";
import { attachmentResponse } from "@/lib/mail/attachment-response";

// GET /api/v1/messages/{id}/attachments/{attachment_id} — download an attachment
export const GET = withApiKey(getAttachmentOp, async ({ actor, params }) =>
  attachmentResponse(await getAttachment(actor, params.id!, params.attachment_id!)),
);
