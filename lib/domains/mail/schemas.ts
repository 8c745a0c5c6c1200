import { z } from "zod";
import { paginationQuery } from "../../platform/api/pagination";
import { MESSAGE_STATUSES } from "../../../db/schema";
import { idField } from "../../platform/api/id-field";
import { ATTACHMENT_LIMITS, base64Chars, cleanFilename, decodedLength, isBase64 } from "./outbound/attachments";
import { LABEL_MAX_CHARS, LABEL_PATTERN, MAX_LABELS, SYSTEM_LABELS } from "./labels";

const senderRule = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^([^\s@]+@[^\s@]+\.[^\s@]+|@[^\s@]+\.[^\s@]+)$/, "an address (a@b.com) or a domain (@b.com)");

export const createInboxInput = z.object({
  agent_id: idField("agent").optional().describe("required for a workspace-wide key; an agent-bound key creates inboxes for its own agent"),
  username: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/, "letters, digits, dots, dashes and underscores; starting and ending with a letter or digit")
    .optional()
    .describe("the part before @; default: generated"),
  domain: z
    .string()
    .trim()
    .min(1)
    .max(253)
    .optional()
    .describe("one of the workspace's own domains (POST /v1/domains), verified (or capture_only without Resend); default: AGENTDRAFT_MAIL_DOMAIN"),
  display_name: z.string().trim().min(1).max(100).optional(),
  allow_senders: z.array(senderRule).max(500).default([]),
  block_senders: z.array(senderRule).max(500).default([]),
});

export const updateInboxInput = z
  .object({
    display_name: z.string().trim().min(1).max(100).nullable().optional(),
    allow_senders: z.array(senderRule).max(500).optional(),
    block_senders: z.array(senderRule).max(500).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: "give at least one field to change" });

/** A label name: lower-cased, then checked against LABEL_PATTERN (lib/domains/mail/labels.ts). */
export const labelName = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(LABEL_MAX_CHARS)
  .regex(LABEL_PATTERN, `1-${LABEL_MAX_CHARS} characters: a letter or digit, then letters, digits, dots, underscores, dashes, slashes or colons (no spaces); case-insensitive`);

const labelFilter = labelName.optional().describe(`only those with this label: a system label (${SYSTEM_LABELS.join(", ")}) or one put on by hand`);

export const changeLabelsInput = z
  .object({
    add: z.array(labelName).max(MAX_LABELS).default([]).describe(`labels to put on (at most ${MAX_LABELS} on one message or thread); \`unread\` marks received mail unread`),
    remove: z.array(labelName).max(MAX_LABELS).default([]).describe("labels to take off; `unread` marks received mail read"),
  })
  .refine((v) => v.add.length + v.remove.length > 0, { message: "give at least one label to add or remove", path: ["add"] });

export const labelsSchema = z
  .object({
    object: z.literal("labels"),
    id: z.string().describe("the message (msg_...) or thread (thr_...)"),
    labels: z.array(z.string()).describe("system labels first, then the others in name order"),
  })
  .meta({ id: "Labels" });

export const listThreadsQuery = paginationQuery.extend({ label: labelFilter });

export const listMessagesQuery = paginationQuery.extend({
  label: labelFilter,
  q: z.string().trim().min(1).max(200).optional().describe("full-text search in subject and body"),
  from: z.string().trim().toLowerCase().max(320).optional().describe("sender address"),
  thread_id: idField("thread").optional(),
  direction: z.enum(["inbound", "outbound"]).optional(),
  automated: z.enum(["true", "false"]).optional(),
  claimable: z.enum(["true"]).optional().describe("only received messages no worker is handling: no live claim, not completed (SPEC §12)"),
});

const address = z.object({ name: z.string().nullable(), email: z.string() });

export const inboxSchema = z
  .object({
    id: z.string().describe("inbox_..."),
    object: z.literal("inbox"),
    agent_id: z.string(),
    address: z.string(),
    domain_id: z.string().nullable().describe("the workspace domain the address is on (dom_...); null on the deployment's AGENTDRAFT_MAIL_DOMAIN"),
    display_name: z.string().nullable(),
    allow_senders: z.array(z.string()),
    block_senders: z.array(z.string()),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Inbox" });

export const messageSchema = z
  .object({
    id: z.string().describe("msg_..."),
    object: z.literal("message"),
    inbox_id: z.string(),
    thread_id: z.string(),
    direction: z.enum(["inbound", "outbound"]),
    status: z
      .enum(MESSAGE_STATUSES)
      .describe("inbound: received. outbound: pending_approval (waits for a person: `approval_id`), discarded (denied or expired: never sent), captured (no mail provider: kept for the web app), queued, sent (the provider accepted it), delivered (by the provider, or at once when every recipient is an inbox of this deployment), bounced or failed"),
    message_id: z.string().describe("the RFC 5322 Message-ID"),
    in_reply_to: z.string().nullable(),
    references: z.array(z.string()),
    from: address,
    to: z.array(address),
    cc: z.array(address),
    bcc: z.array(address).describe("outbound: the Bcc recipients, delivered but never in the message's headers or source; received mail: empty"),
    subject: z.string(),
    date: z.iso.datetime().nullable(),
    extracted_text: z
      .string()
      .nullable()
      .describe("the new text, without quoted history and signature: what to read first. null: not computed (mail stored before it was): read `text`"),
    extraction_fallback: z
      .enum(["error", "too_large"])
      .nullable()
      .describe("set when extracted_text is the full text because extraction failed (`error`) or found no quote in the first 64 KB of a longer text (`too_large`)"),
    text: z.string().describe("the whole text, quoted history included"),
    text_reply: z.string().describe("the older name of extracted_text (the same text)"),
    markdown: z.string(),
    html_sanitized: z.string().nullable(),
    extracted_html: z.string().nullable().describe("html_sanitized without quoted history and signature; null without HTML (or not computed)"),
    labels: z.array(z.string()).describe(`system labels (${SYSTEM_LABELS.join(", ")}) first, then those put on by hand`),
    body_truncated: z.boolean().describe("text, markdown or html_sanitized was cut at MAIL_MAX_BODY_CHARS characters; the whole message is at GET /v1/messages/{id}/raw"),
    attachments: z.array(z.object({ id: z.string(), filename: z.string().nullable(), content_type: z.string(), content_id: z.string().nullable(), size: z.number().int(), sha256: z.string() })),
    headers_of_note: z.record(z.string(), z.string().nullable()),
    security: z.object({
      zero_width_removed: z.number().int(),
      scripts_removed: z.boolean(),
      styles_removed: z.boolean(),
      hidden_text_removed: z.boolean(),
      remote_images_removed: z.number().int(),
      forms_removed: z.boolean(),
      iframes_removed: z.boolean(),
      injection_signals: z.array(z.object({ signal: z.string(), excerpt: z.string(), where: z.string() })),
      auth_failed: z.boolean(),
      tainted_sender: z.boolean().optional().describe("mail from another inbox here whose agent had read untrusted mail: reading it taints you as that mail would"),
      sender_outside: z
        .boolean()
        .optional()
        .describe("the sender is not a member, an inbox of this workspace, or at a domain its admins trust (other workspaces are outside): reading it taints you, however well it authenticated"),
    }),
    automated: z.boolean().describe("machine-sent (auto-reply, bulk, list, bounce): do not reply"),
    automated_reasons: z.array(z.string()),
    size_bytes: z.number().int(),
    trace_id: z
      .string()
      .nullable()
      .describe("received mail: the trace it starts (send it as x-trace-id on what you do about it); sent mail: the trace of the request that sent it"),
    approval_id: z.string().nullable().describe("outbound mail that waited for a person: the approval that released (or discarded) it"),
    forwarded_from: z.string().nullable().describe("a forward: the message it forwards (msg_...), whose thread it joins in this inbox"),
    attachment_notes: z
      .array(z.object({ filename: z.string(), declared_content_type: z.string(), content_type: z.string(), note: z.string() }))
      .optional()
      .describe("only on the answer to a send, reply or forward: files whose declared content_type was replaced by the type sniffed from their bytes"),
    delivery: z
      .object({ attempts: z.number().int(), next_attempt_at: z.iso.datetime().nullable(), last_error: z.string().nullable(), provider_id: z.string().nullable() })
      .nullable()
      .describe("outbound only: delivery attempts, the next one while queued, the last failure or bounce"),
    created_at: z.iso.datetime(),
    content_notice: z.string().optional(),
  })
  .meta({ id: "Message" });

export const threadSchema = z
  .object({
    id: z.string().describe("thr_..."),
    object: z.literal("thread"),
    inbox_id: z.string(),
    subject: z.string(),
    message_count: z.number().int(),
    labels: z.array(z.string()).describe("system labels any of its messages has, then those put on the thread by hand"),
    last_message_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Thread" });

export const threadWithMessagesSchema = threadSchema.extend({ messages: z.array(messageSchema) }).meta({ id: "ThreadWithMessages" });

export const recipient = z.email().max(320).transform((v) => v.toLowerCase());
export const customHeaders = z
  .record(z.string().min(1).max(100), z.string().max(998))
  .refine((h) => Object.keys(h).length <= 50, "at most 50 headers")
  .optional()
  .describe("extra headers such as X-Campaign-Id; routing, identity and structure headers (From, To, Message-ID, References, Content-*...) are refused");
const text = z.string().min(1).max(500_000).describe("the plain-text body");
const html = z.string().max(2_000_000).optional().describe("an HTML body, sent as written; stored and shown sanitised");

const requireApproval = z
  .boolean()
  .default(false)
  .describe("hold the composed message for a person: the answer is 202 with the message `pending_approval` and its `approval_id`; exactly those bytes are sent once approved, nothing on denial or expiry");

const L = ATTACHMENT_LIMITS;
const attachmentInput = z.object({
  filename: z
    .string()
    .min(1)
    .max(1000)
    .transform(cleanFilename)
    .describe(`the file's name: its last path segment is kept, control and reserved characters (/ \\ : * ? " < > |) become _, at most ${L.filenameChars} characters`),
  content_base64: z
    .string()
    .min(4)
    .max(base64Chars(L.fileBytes), { message: `at most ${L.fileBytes} bytes decoded (${base64Chars(L.fileBytes)} base64 characters)`, abort: true })
    .refine(isBase64, "standard base64 (RFC 4648 §4: A-Z a-z 0-9 + /, padded with =), without line breaks or spaces")
    .refine((v) => !isBase64(v) || decodedLength(v) <= L.fileBytes, `at most ${L.fileBytes} bytes decoded`)
    .describe(`the file's bytes, base64; at most ${L.fileBytes} bytes decoded`),
  content_type: z
    .string()
    .trim()
    .max(255)
    .optional()
    .describe("what you believe it is; the type sent is sniffed from the bytes, and the answer's `attachment_notes` says when it differs"),
});

/** Files given with a message or a draft: the limits checked before anything is decoded. */
export const attachmentFiles = z
  .array(attachmentInput)
  .max(L.count, `at most ${L.count} attachments on one message`)
  .refine(
    (list) => list.reduce((n, a) => n + (isBase64(a.content_base64) ? decodedLength(a.content_base64) : 0), 0) <= L.totalBytes,
    `at most ${L.totalBytes} bytes of attachments in all, decoded`,
  );

const attachmentList = attachmentFiles
  .default([])
  .describe(
    `files to attach: at most ${L.count}, ${L.fileBytes} bytes each and ${L.totalBytes} in all (decoded). The type is sniffed from the bytes (PDF, PNG, JPEG, GIF, WebP, ZIP, Word, Excel, PowerPoint, text; anything else is application/octet-stream); executables (MZ, ELF, Mach-O, #! scripts) are refused. Each file is stored once per workspace by its SHA-256.`,
  );

/** Recipients of one outgoing message (To and Cc together), new or reply_all. */
export const MAX_SEND_RECIPIENTS = 50;

const bcc = z
  .array(recipient)
  .max(50)
  .default([])
  .describe("blind copies: delivered (Resend's `bcc`, or to an inbox here) but never named in the message's headers; the sent message lists them in `bcc`, for the workspace only");

export const sendMessageInput = z
  .object({
    to: z.array(recipient).min(1).max(50),
    cc: z.array(recipient).max(50).default([]),
    bcc,
    subject: z.string().trim().min(1).max(900).refine((v) => !/[\r\n\0]/.test(v), "the subject cannot contain line breaks"),
    text,
    html,
    headers: customHeaders,
    attachments: attachmentList,
    require_approval: requireApproval,
  })
  .refine((v) => v.to.length + v.cc.length + v.bcc.length <= MAX_SEND_RECIPIENTS, { message: `at most ${MAX_SEND_RECIPIENTS} recipients in to, cc and bcc together`, path: ["cc"] });

export const replyInput = z.object({
  require_approval: requireApproval,
  text,
  html,
  reply_all: z.boolean().default(false).describe("also reply to the parent's other To and Cc recipients"),
  bcc: bcc.describe(`blind copies of the reply: delivered (Resend's \`bcc\`, or to an inbox here) but never named in its headers; at most ${MAX_SEND_RECIPIENTS} recipients with the To and Cc the reply derives; the sent message lists them in \`bcc\`, for the workspace only`),
  headers: customHeaders,
  attachments: attachmentList,
  allow_automated: z
    .boolean()
    .default(false)
    .describe("replying to automated mail (auto-replies, bounces, lists) risks a mail loop and is refused unless this is true"),
});

export const forwardInput = z
  .object({
    to: z.array(recipient).min(1).max(50),
    cc: z.array(recipient).max(50).default([]),
    bcc,
    note: z.string().max(500_000).optional().describe("text put above the forwarded message"),
    include_attachments: z.boolean().default(true).describe("forward the message's attachments too (the same limits and refusals as attachments sent: an executable is refused)"),
    headers: customHeaders,
    require_approval: requireApproval,
  })
  .refine((v) => v.to.length + v.cc.length + v.bcc.length <= MAX_SEND_RECIPIENTS, { message: `at most ${MAX_SEND_RECIPIENTS} recipients in to, cc and bcc together`, path: ["cc"] });
