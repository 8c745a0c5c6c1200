// The public entry of lib/domains/taint: what another domain may use of it (a domain never reaches into another's files).
export { agentTaint, agentTaintJson, messagesInEvents, passTaint, readMessageColumns, recordReads, recordReadsBy, recordReadsOf } from "./agent-taint";
export type { AgentTaint, Taint } from "./agent-taint";
export { taintOf, taintOfMessage } from "./untrusted-mail";
export { senderInside } from "./inside-sender";
export type { MailTaint } from "./untrusted-mail";
