import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { AppError } from "@/lib/platform/errors";
import { discardDraftOp, getDraftOp, updateDraftOp } from "@/lib/domains/mail/draft-operations";
import { discardDraft, draftEtag, getDraft, serializeDraft, updateDraft, versionFrom } from "@/lib/domains/mail/drafts";

const shown = (d: Awaited<ReturnType<typeof getDraft>>) => json(serializeDraft(d), 200, { etag: draftEtag(d) });

// GET /api/v1/drafts/{id} — the draft, its version as the ETag
export const GET = withApiKey(getDraftOp, async ({ actor, params }) => shown(await getDraft(actor, params.id!)));

// PATCH /api/v1/drafts/{id} — edit the version read (If-Match or version), else 409
export const PATCH = withApiKey(updateDraftOp, async ({ actor, params, body, req }) => {
  const { version: bodyVersion, ...changes } = body;
  const version = versionFrom(req.headers.get("if-match"), bodyVersion);
  if (version === undefined) {
    throw new AppError("validation_failed", "Name the version you read: If-Match (the draft's ETag) or version.", { errors: [{ field: "version", message: "required (or If-Match)" }] });
  }
  return shown(await updateDraft(actor, params.id!, version, changes));
});

// DELETE /api/v1/drafts/{id} — discard (with If-Match or ?version=, only that version)
export const DELETE = withApiKey(discardDraftOp, async ({ actor, params, query, req }) =>
  shown(await discardDraft(actor, params.id!, versionFrom(req.headers.get("if-match"), query.version))),
);
