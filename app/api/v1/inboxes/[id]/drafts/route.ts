import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json, list } from "@/lib/platform/api/responses";
import { createDraftOp, listDraftsOp } from "@/lib/domains/mail/draft-operations";
import { createDraft, draftEtag, listDrafts, serializeDraft } from "@/lib/domains/mail/drafts";

// GET /api/v1/inboxes/{id}/drafts — newest first
export const GET = withApiKey(listDraftsOp, async ({ actor, params, query }) => {
  const { items, hasMore } = await listDrafts(actor, params.id!, query);
  return list(items.map(serializeDraft), hasMore);
});

// POST /api/v1/inboxes/{id}/drafts — start a draft (a reply takes To, subject and threading from its message)
export const POST = withApiKey(createDraftOp, async ({ actor, params, body }) => {
  const draft = await createDraft(actor, params.id!, body);
  return json(serializeDraft(draft), 201, { etag: draftEtag(draft) });
});
