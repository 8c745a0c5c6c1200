import type { Transaction } from "../../../db/client";
import { attachments, type MessageRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import type { ParsedMessage } from "./inbound/parse-message";

/** The message columns that come from parsing its MIME, the same for received and sent mail. */
export function parsedColumns(m: ParsedMessage) {
  return {
    messageId: m.messageId,
    inReplyTo: m.inReplyTo,
    references: m.references,
    from: m.from,
    to: m.to,
    cc: m.cc,
    subject: m.subject,
    date: m.date,
    text: m.text,
    textReply: m.textReply,
    extractedText: m.extractedText,
    extractedHtml: m.extractedHtml,
    extractionFallback: m.extractionFallback,
    markdown: m.markdown,
    htmlSanitized: m.htmlSanitized,
    bodyTruncated: m.bodyTruncated,
    headersOfNote: m.headersOfNote,
    security: m.security,
    automated: m.automated,
    automatedReasons: m.automatedReasons,
    sizeBytes: m.sizeBytes,
  };
}

/** Stores a message's attachments; returns their metadata for serializing. */
export async function storeAttachments(tx: Transaction, message: MessageRow, m: ParsedMessage) {
  if (!m.attachments.length) return [];
  return tx
    .insert(attachments)
    .values(m.attachments.map((a) => ({ id: newId("attachment"), workspaceId: message.workspaceId, messageId: message.id, ...a })))
    .returning({ id: attachments.id, filename: attachments.filename, contentType: attachments.contentType, contentId: attachments.contentId, size: attachments.size, sha256: attachments.sha256 });
}
