import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type { InboxRow } from "../../../../db/schema";
import type { PreparedAttachment } from "./attachments";

export type Draft = {
  to: string[];
  cc: string[];
  /** Blind copies: in the provider's envelope and on the stored row, never in the composed headers. */
  bcc?: string[];
  subject: string;
  text: string;
  html?: string;
  inReplyTo?: string;
  references: string[];
  headers: Record<string, string>;
  /** Files, decoded and sniffed (lib/domains/mail/outbound/attachments.ts). */
  attachments: PreparedAttachment[];
  /** A forward: the message it forwards, whose thread it joins in the sending inbox. */
  forwardOf?: { id: string; threadId: string };
};

/** A Message-ID on the inbox's own domain, unique by the message's row id. */
export const outboundMessageId = (rowId: string, inbox: InboxRow) => `<${rowId}@${inbox.address.split("@")[1]}>`;

/** At most this many ids in References: the first (the thread's root) and the most recent (RFC 5322 §3.6.4). */
const MAX_REFERENCES = 30;

/** The References of a reply: the parent's chain plus the parent itself, trimmed in the middle if long. */
export function replyReferences(parent: { references: string[]; messageId: string }): string[] {
  const chain = [...parent.references.filter((id) => id !== parent.messageId), parent.messageId];
  return chain.length <= MAX_REFERENCES ? chain : [chain[0]!, ...chain.slice(chain.length - (MAX_REFERENCES - 1))];
}

/** "Fwd: " once: a subject already marked as a forward (Fwd:, Fw:) is kept. */
export const forwardSubject = (subject: string) => (/^\s*fwd?\s*:/i.test(subject) ? subject : `Fwd: ${subject}`.trim());

export const replySubject = (subject: string) => (/^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`.trim());

/** The message as it goes on the wire: real RFC 5322 bytes, kept as the message's source. */
export async function composeOutbound(inbox: InboxRow, draft: Draft, messageId: string, date: Date): Promise<Buffer> {
  const composer = new MailComposer({
    from: inbox.displayName ? { name: inbox.displayName, address: inbox.address } : inbox.address,
    to: draft.to,
    cc: draft.cc.length ? draft.cc : undefined,
    subject: draft.subject,
    text: draft.text,
    html: draft.html,
    messageId,
    date,
    inReplyTo: draft.inReplyTo,
    references: draft.references.length ? draft.references : undefined,
    headers: draft.headers,
    attachments: draft.attachments.map((a) => ({ filename: a.filename, content: a.bytes, contentType: a.contentType, contentDisposition: "attachment" as const })),
  });
  return composer.compile().build();
}
