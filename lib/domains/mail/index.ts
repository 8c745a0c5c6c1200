// The public entry of lib/domains/mail: what another domain may use of it (a domain never reaches into another's files).
export { getMessageOp } from "./operations";
export type { Draft } from "./outbound/compose";
export { settleHeldMail } from "./outbound/held-mail";
export { composeForSending, draftForForward, draftForReply, draftForSend, sendDraft, storeOutbound } from "./outbound/send-message";
export type { forwardInput, replyInput, sendMessageInput } from "./schemas";
export { attachmentNotes } from "./outbound/attachments";
export type { AttachmentNote } from "./outbound/attachments";
export { configuredTransport, queueMail, sendMail } from "./send-mail";
export type { MailTransport } from "./send-mail";
export { composeStoredDraft, getDraft, markDraftSent, prepareDraftEdit, writeDraftEdit, updateDraft } from "./drafts";
export type { DraftEdit } from "./drafts";
