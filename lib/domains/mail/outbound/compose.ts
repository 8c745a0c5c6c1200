import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type { InboxRow } from "../../../../db/schema";

export type Draft = {
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html?: string;
  inReplyTo?: string;
  references: string[];
  headers: Record<string, string>;
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
  });
  return composer.compile().build();
}
