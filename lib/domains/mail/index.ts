// The public entry of lib/domains/mail: what another domain may use of it (a domain never reaches into another's files).
export { getMessageOp } from "./operations";
export type { Draft } from "./outbound/compose";
export { settleHeldMail } from "./outbound/held-mail";
export { composeForSending, draftForReply, draftForSend, sendDraft, storeOutbound } from "./outbound/send-message";
export type { replyInput, sendMessageInput } from "./schemas";
export { configuredTransport, queueMail, sendMail } from "./send-mail";
export type { MailTransport } from "./send-mail";
export { composeStoredDraft, getDraft, markDraftSent } from "./drafts";
