import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, json } from "@/lib/platform/api/responses";
import { sendDraftOp } from "@/lib/domains/mail/draft-operations";
import { versionFrom } from "@/lib/domains/mail/drafts";
import { getMessage } from "@/lib/domains/mail/read-mail";
import { sendStoredDraft } from "@/lib/domains/approvals/mail-gate";

// POST /api/v1/drafts/{id}/send — through the usual send path and gate, exactly once (202 when held for approval)
export const POST = withApiKey(sendDraftOp, async ({ actor, params, body, req }) => {
  const { message, approval } = await sendStoredDraft(actor, params.id!, versionFrom(req.headers.get("if-match"), body.version), body.require_approval);
  const shown = await getMessage(actor, message.id);
  return approval ? json(shown, 202) : created(shown);
});
