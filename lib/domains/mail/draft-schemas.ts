import { z } from "zod";
import { paginationQuery } from "../../platform/api/pagination";
import { idField } from "../../platform/api/id-field";
import { DRAFT_KINDS, DRAFT_STATUSES } from "../../../db/schema";
import { attachmentFiles, customHeaders, MAX_SEND_RECIPIENTS, recipient } from "./schemas";
import { ATTACHMENT_LIMITS as L } from "./outbound/attachments";

/** The limits of a draft are a message's (POST /v1/inboxes/{id}/messages): a draft always fits in one send. */
const recipients = z.array(recipient).max(MAX_SEND_RECIPIENTS);
const subject = z
  .string()
  .trim()
  .max(900)
  .refine((v) => !/[\r\n\0]/.test(v), "the subject cannot contain line breaks");
const text = z.string().max(500_000).describe("the plain-text body (may be empty while drafting; required to send)");
const html = z.string().max(2_000_000).nullable().optional().describe("an HTML body, sent as written; shown sanitised");
const version = z.number().int().min(1).max(2_147_483_647);
const files = `at most ${L.count} files, ${L.fileBytes} bytes each and ${L.totalBytes} in all (decoded), as send takes them; each type sniffed from its bytes (executables refused), each stored once per workspace by SHA-256`;

const withinRecipientLimit = (v: { to?: string[]; cc?: string[]; bcc?: string[] }) => (v.to?.length ?? 0) + (v.cc?.length ?? 0) + (v.bcc?.length ?? 0) <= MAX_SEND_RECIPIENTS;
const recipientLimit = { message: `at most ${MAX_SEND_RECIPIENTS} recipients in to, cc and bcc together`, path: ["to"] };

export const createDraftInput = z
  .object({
    kind: z.enum(DRAFT_KINDS).default("new").describe("new, reply (to `in_reply_to`: To, subject and threading come from that message) or forward (of `in_reply_to`; its files go too)"),
    in_reply_to: idField("message").optional().describe("reply and forward: the message (msg_...) answered or forwarded"),
    reply_all: z.boolean().default(false).describe("reply: also address the message's other To and Cc recipients"),
    allow_automated: z.boolean().default(false).describe("reply: replying to automated mail is refused unless this is true (a mail loop)"),
    to: recipients.optional().describe("new and forward: the recipients; reply: replaces those derived from the message"),
    cc: recipients.optional(),
    bcc: recipients.optional().describe("blind copies: delivered, never named in the message's headers; the sent message lists them for the workspace"),
    subject: subject.optional().describe("reply: default `Re: ` and the message's subject"),
    text: text.default(""),
    html,
    headers: customHeaders,
    attachments: attachmentFiles.default([]).describe(`the draft's files: ${files}. A forward also sends the original's files (together within the same limits)`),
  })
  .refine(withinRecipientLimit, recipientLimit)
  .refine((v) => (v.kind === "new") === (v.in_reply_to === undefined), { message: "in_reply_to is required for a reply or forward, and not taken for a new message", path: ["in_reply_to"] });

export const updateDraftInput = z
  .object({
    version: version.optional().describe("the version you read (or send it as If-Match): a draft changed since is 409"),
    to: recipients.optional(),
    cc: recipients.optional(),
    bcc: recipients.optional(),
    subject: subject.optional(),
    text: text.optional(),
    html,
    headers: customHeaders,
    attachments: attachmentFiles.optional().describe(`replaces the draft's files (\`[]\` removes them): ${files}`),
  })
  .refine((v) => Object.keys(v).some((k) => k !== "version"), { message: "give at least one field to change" })
  .refine(withinRecipientLimit, recipientLimit);

export const sendDraftInput = z
  .object({
    version: version.optional().describe("the version you read (or send it as If-Match): what is sent is exactly that version; changed since, 409"),
    require_approval: z
      .boolean()
      .default(false)
      .describe("hold the composed message for a person: 202 with the message `pending_approval` and its `approval_id`; exactly those bytes are sent once approved"),
  })
  .default({ require_approval: false });

export const listDraftsQuery = paginationQuery.extend({
  status: z.enum(DRAFT_STATUSES).optional().describe("only drafts in this state"),
});

export const draftSchema = z
  .object({
    id: z.string().describe("drf_..."),
    object: z.literal("draft"),
    inbox_id: z.string(),
    kind: z.enum(DRAFT_KINDS),
    in_reply_to: z.string().nullable().describe("reply and forward: the message (msg_...) answered or forwarded"),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    subject: z.string(),
    text: z.string(),
    html: z.string().nullable(),
    headers: z.record(z.string(), z.string()),
    attachments: z
      .array(
        z.object({
          id: z.string().describe("att_...: download the bytes at GET /v1/drafts/{id}/attachments/{attachment_id}; the same until the draft's files are replaced"),
          filename: z.string(),
          content_type: z.string().describe("sniffed from the bytes"),
          size: z.number().int(),
          sha256: z.string(),
        }),
      )
      .describe("the draft's own files (their bytes are not returned: download each by its id); a forward also sends the original's"),
    attachment_notes: z
      .array(z.object({ filename: z.string(), declared_content_type: z.string(), content_type: z.string(), note: z.string() }))
      .optional()
      .describe("only on the answer to a create or an edit that gave files: those whose declared content_type was replaced by the type sniffed from their bytes"),
    status: z
      .enum(DRAFT_STATUSES)
      .describe("draft: editable; returned: a person sent it back (`review_note` says why; edit it to make it a draft again); sent: it became `message_id` (which may wait for approval: `approval_id`); discarded"),
    review_note: z.string().nullable().describe("why a person sent it back"),
    version: z.number().int().describe("counts changes: send it back as If-Match (or `version`) when editing or sending"),
    created_by: z.record(z.string(), z.string().nullable()).describe("who wrote it: a key (and its agent) or a member"),
    message_id: z.string().nullable().describe("sent: the message (msg_...) it became"),
    approval_id: z.string().nullable().describe("sent and held by a mail policy: the approval that releases exactly those bytes"),
    sent_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Draft" });

/** A review note: why a person sends a draft back. */
export const returnDraftInput = z.object({
  version,
  note: z.string().trim().min(1).max(2000),
});
