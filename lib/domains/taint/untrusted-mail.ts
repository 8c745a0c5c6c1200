import type { MessageRow } from "../../../db/schema";

/** What is wrong with a received message an agent must not act on without a person. */
export type TaintReason = "sender_outside" | "sender_unauthenticated" | "sender_authentication_failed" | "injection_signals" | "tainted_sender";

/** Why an action is tainted: the untrusted message, its sender, and what is wrong with it. */
export type MailTaint = { message_id: string; from: string; reasons: TaintReason[] };

/** A message as read for judging it. */
export type JudgedMessage = Pick<MessageRow, "id" | "from"> & { headers: MessageRow["headersOfNote"]; security: MessageRow["security"] };

/**
 * A received message is untrusted unless it comes from inside the workspace (a member, an inbox
 * of this workspace, a domain its admins trust: judged when it arrived, lib/domains/taint/inside-sender.ts;
 * mail stored before that was judged is outside). Whoever sent it, these are further reasons, each
 * shown: its sender was not authenticated (no SPF, DKIM or DMARC pass) or failed authentication,
 * its body carries prompt-injection signals, or it is local mail from an agent that was tainted
 * when it sent it (taint is not laundered through another inbox). Null when none.
 */
export function taintOf(m: JudgedMessage): MailTaint | null {
  const reasons: TaintReason[] = [];
  if (m.security.sender_outside !== false) reasons.push("sender_outside");
  if (m.security.auth_failed) reasons.push("sender_authentication_failed");
  else if (![m.headers.spf, m.headers.dkim, m.headers.dmarc].includes("pass")) reasons.push("sender_unauthenticated");
  if (m.security.injection_signals.length) reasons.push("injection_signals");
  if (m.security.tainted_sender) reasons.push("tainted_sender");
  return reasons.length ? { message_id: m.id, from: m.from.email, reasons } : null;
}

/** taintOf for a stored message: only received mail is judged (what an agent sent is not external content). */
export const taintOfMessage = (m: Pick<MessageRow, "id" | "from" | "direction" | "headersOfNote" | "security">): MailTaint | null =>
  m.direction === "inbound" ? taintOf({ id: m.id, from: m.from, headers: m.headersOfNote, security: m.security }) : null;
