/** A rule is an address (`a@b.com`) or a domain (`@b.com`), compared case-insensitively. */
const matches = (rule: string, sender: string) => {
  const r = rule.trim().toLowerCase();
  return r.startsWith("@") ? sender.endsWith(r) : sender === r;
};

/**
 * Block list first (on the From address as written: blocking a forged name costs nothing);
 * then, if an allow list exists, only senders on it whose From is DMARC-authenticated (aligned
 * SPF or DKIM, checked by us or a trusted MTA): a From header alone proves nothing.
 */
export function senderRefused(sender: string, allow: string[], block: string[], dmarc: string | null = null): string | null {
  const s = sender.toLowerCase();
  if (block.some((r) => matches(r, s))) return "sender is on the inbox's block list";
  if (!allow.length) return null;
  if (!allow.some((r) => matches(r, s))) return "sender is not on the inbox's allow list";
  if (dmarc !== "pass") return `sender is on the inbox's allow list, but its From address is not DMARC-authenticated (dmarc=${dmarc ?? "not checked"})`;
  return null;
}
