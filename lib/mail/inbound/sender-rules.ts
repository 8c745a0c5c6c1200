/** A rule is an address (`a@b.com`) or a domain (`@b.com`), compared case-insensitively. */
const matches = (rule: string, sender: string) => {
  const r = rule.trim().toLowerCase();
  return r.startsWith("@") ? sender.endsWith(r) : sender === r;
};

/** Block list first; then, if an allow list exists, only senders on it. */
export function senderRefused(sender: string, allow: string[], block: string[]): string | null {
  const s = sender.toLowerCase();
  if (block.some((r) => matches(r, s))) return "sender is on the inbox's block list";
  if (allow.length && !allow.some((r) => matches(r, s))) return "sender is not on the inbox's allow list";
  return null;
}
