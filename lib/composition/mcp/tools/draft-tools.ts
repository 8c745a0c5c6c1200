import { z } from "zod";
import { createDraft, listDrafts, serializeDraft, updateDraft } from "../../../domains/mail/drafts";
import { getMessage } from "../../../domains/mail/read-mail";
import { sendStoredDraft } from "../../../domains/approvals/mail-gate";
import { createDraftInput, listDraftsQuery, sendDraftInput, updateDraftInput } from "../../../domains/mail/draft-schemas";
import { READ_ONLY, defineTool, idArg, idempotencyKeyArg, type Annotations } from "../define-tool";
import { forAgent } from "./mail-tools";

const scope = "mail" as const;
const review =
  "A draft waits for review: people see it in the web app, edit it, send it, or send it back with a review_note (status returned: edit it, which makes it a draft again, before sending). Every change names the version you read; a changed draft is a conflict (read it again). A draft sent and waiting for a person's approval cannot be changed or sent again (conflict draft_awaiting_approval): await_approval for the decision, or cancel_approval (the held message is discarded) and write a new draft.";
const WRITES: Annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const createDraftTool = defineTool({
  name: "create_draft",
  title: "Write a draft",
  description: `Start a draft in one of your inboxes instead of sending: kind new (to, subject, text), or reply (in_reply_to: To, subject and threading come from that message). ${review}`,
  scope,
  input: { inbox_id: idArg("inbox_... to write from"), ...createDraftInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: WRITES,
  write: ({ inbox_id, ...body }) => ({ path: `/v1/inboxes/${inbox_id}/drafts`, body, status: 201 }),
  run: async ({ actor }, { inbox_id, ...body }) => serializeDraft(await createDraft(actor, inbox_id, createDraftInput.parse(body))),
});

export const updateDraftTool = defineTool({
  name: "update_draft",
  title: "Edit a draft",
  description: `Change a draft's to, cc, subject, text or html. version (required) is the version you read. ${review}`,
  scope,
  input: { draft_id: idArg("drf_..."), ...updateDraftInput.shape, version: z.number().int().min(1).max(2_147_483_647).describe("the version you read"), idempotency_key: idempotencyKeyArg },
  annotations: { ...WRITES, idempotentHint: true },
  write: ({ draft_id, ...body }) => ({ method: "PATCH", path: `/v1/drafts/${draft_id}`, body }),
  run: async ({ actor }, { draft_id, version, ...changes }) => serializeDraft(await updateDraft(actor, draft_id, version, updateDraftInput.parse({ ...changes, version }))),
});

export const listDraftsTool = defineTool({
  name: "list_drafts",
  title: "List drafts",
  description: `List an inbox's drafts, newest first; status returned keeps those a person sent back (read review_note). ${review}`,
  scope,
  input: { inbox_id: idArg("inbox_..."), ...listDraftsQuery.shape },
  annotations: READ_ONLY,
  run: async ({ actor }, { inbox_id, ...query }) => {
    const { items, hasMore } = await listDrafts(actor, inbox_id, query);
    return { object: "list", data: items.map(serializeDraft), has_more: hasMore };
  },
});

export const sendDraftTool = defineTool({
  name: "send_draft",
  title: "Send a draft",
  description:
    "Send a draft as it stands (version: the one you read), through the same rules as send_message (require_approval holds it for a person): sent, or held for a person's approval (status pending_approval with its approval_id; exactly those bytes go out once approved). The draft becomes sent, once. Pass idempotency_key so a retry never sends twice.",
  scope,
  input: { draft_id: idArg("drf_..."), ...sendDraftInput.unwrap().shape, idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  write: ({ draft_id, ...body }) => ({ path: `/v1/drafts/${draft_id}/send`, body, status: 201 }),
  run: async ({ actor }, { draft_id, version, require_approval }) => {
    const { message } = await sendStoredDraft(actor, draft_id, version, require_approval);
    return forAgent(await getMessage(actor, message.id));
  },
});

export const DRAFT_TOOLS = [createDraftTool, updateDraftTool, listDraftsTool, sendDraftTool];
