import { z } from "zod";
import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { createDraftInput, draftSchema, listDraftsQuery, sendDraftInput, updateDraftInput } from "./draft-schemas";
import { messageSchema } from "./schemas";
import { ATTACHMENT_BODY_ALLOWANCE, ATTACHMENT_LIMITS as L } from "./outbound/attachments";

const tag = "Mail";
const scope = "mail" as const;
const files = ` Attachments (\`attachments\`): at most ${L.count} files, ${L.fileBytes} bytes each and ${L.totalBytes} in all (decoded), as base64, the limits checked before anything is stored (400 naming the field); this route's body may be ${ATTACHMENT_BODY_ALLOWANCE} bytes over API_MAX_BODY_BYTES to carry them. Each file's type is sniffed from its bytes (executables refused) and its bytes stored once per workspace by SHA-256; the draft lists them (filename, content_type, size, sha256) without their bytes.`;
const versions =
  "Each change adds one to the draft's `version` (its ETag). A change names the version it read, as `If-Match` or as `version`: a draft changed since is 409 (`stale_version`, with the current version).";

export const createDraftOp = defineOperation({
  method: "POST",
  path: "/v1/inboxes/{id}/drafts",
  operationId: "createDraft",
  summary: "Start a draft: a new message, a reply or a forward, kept for editing and review",
  description:
    "A reply draft takes its To (the sender's Reply-To, or with `reply_all` everyone on the message), Cc, subject (`Re: ...`) and threading from the message in `in_reply_to`, as the reply endpoint does; fields you give replace them. A draft has a message's limits (50 recipients, subject and body sizes). `draft.created` fires. Send an Idempotency-Key to make retries safe." + files,
  tag,
  scope,
  body: createDraftInput,
  extraBodyBytes: ATTACHMENT_BODY_ALLOWANCE,
  responses: { 201: { description: "The draft (status `draft`, version 1)", schema: draftSchema } },
});

export const listDraftsOp = defineOperation({
  method: "GET",
  path: "/v1/inboxes/{id}/drafts",
  operationId: "listDrafts",
  summary: "List an inbox's drafts, newest first",
  tag,
  scope,
  query: listDraftsQuery,
  responses: { 200: { description: "A page of drafts", schema: listOf(draftSchema) } },
});

export const getDraftOp = defineOperation({
  method: "GET",
  path: "/v1/drafts/{id}",
  operationId: "getDraft",
  summary: "Retrieve a draft (its version in the ETag)",
  description: "A draft a person sent back is `returned`, with their `review_note`.",
  tag,
  scope,
  responses: { 200: { description: "The draft", schema: draftSchema } },
});

export const getDraftAttachmentOp = defineOperation({
  method: "GET",
  path: "/v1/drafts/{id}/attachments/{attachment_id}",
  operationId: "downloadDraftAttachment",
  summary: "Download a draft's file (its bytes as stored, with its sha256 in the etag)",
  description:
    "`attachment_id` is the file's `id` in the draft's `attachments`. The bytes are read from the workspace's store and checked against the file's SHA-256; the answer has the sniffed content type, `Content-Disposition: attachment` with the file name, and `nosniff`. An agent-bound key downloads only its own inboxes' drafts' files (404 otherwise), as it reads the drafts.",
  tag,
  scope,
  responses: { 200: { description: "The file's bytes", schema: z.string().meta({ format: "binary" }), contentType: "application/octet-stream" } },
});

export const updateDraftOp = defineOperation({
  method: "PATCH",
  path: "/v1/drafts/{id}",
  operationId: "updateDraft",
  summary: "Edit a draft (only the version you read)",
  description: `${versions} The version is required. A \`returned\` draft edited is a draft again. A sent or discarded draft cannot change (409); a draft sent and waiting for a person's approval is 409 \`draft_awaiting_approval\`: only a person's edit on the draft's page reopens it (cancelling the approval), so wait for the decision, or withdraw the approval (POST /v1/approvals/{id}/cancel) and write a new draft. \`attachments\`, when given, replaces the draft's files.${files}`,
  tag,
  scope,
  body: updateDraftInput,
  extraBodyBytes: ATTACHMENT_BODY_ALLOWANCE,
  responses: { 200: { description: "The draft, its version one higher", schema: draftSchema } },
});

export const discardDraftOp = defineOperation({
  method: "DELETE",
  path: "/v1/drafts/{id}",
  operationId: "discardDraft",
  summary: "Discard a draft (kept as `discarded`, never sent)",
  description: `With \`If-Match\` (or \`version\`), only that version. ${versions}`,
  tag,
  scope,
  query: z.object({ version: z.coerce.number().int().min(1).max(2_147_483_647).optional().describe("the version you read") }),
  responses: { 200: { description: "The draft, discarded", schema: draftSchema } },
});

export const sendDraftOp = defineOperation({
  method: "POST",
  path: "/v1/drafts/{id}/send",
  operationId: "sendDraft",
  summary: "Send a draft through the usual send path, exactly once",
  description:
    `The draft is composed and sent as POST /v1/inboxes/{id}/messages sends (or as a reply, threaded), under the same mail policies and taint rules: sent, 201 with the message; held for a person, 202 with the message \`pending_approval\` and its \`approval_id\` (exactly those bytes go out once approved). Either way the draft is \`sent\` with \`message_id\`. Of sends racing for one draft, one makes a message; the others are 409. A returned, sent or discarded draft is 409; an incomplete one is 422. Bcc recipients are delivered (Resend's \`bcc\`, or locally) and never named in the message's headers; with every To and Cc an inbox here and a Bcc outside, the send is 422 (\`bcc_needs_external_recipient\`). ${versions} Send an Idempotency-Key to make retries safe.`,
  tag,
  scope,
  body: sendDraftInput,
  responses: {
    201: { description: "The message sent", schema: messageSchema },
    202: { description: "Held for a person's approval: the message, `pending_approval`, with its `approval_id`", schema: messageSchema },
  },
});
