/** `Re: Fwd: AW:  Budget  ` → `budget`: replies and forwards share their original's key. */
export function subjectKey(subject: string): string {
  let s = subject.trim();
  for (;;) {
    const next = s.replace(/^\s*(re|fwd?|aw|sv|vs|antw|wg|tr|rif|r|enc|res)\s*(\[\d+\])?\s*:\s*/i, "").replace(/^\s*\[[^\]]{1,40}\]\s*/, "");
    if (next === s) break;
    s = next;
  }
  return s.replace(/\s+/g, " ").toLowerCase();
}

/** Everyone on the message but the inbox itself, sorted. */
export function participantsKey(addresses: string[], inboxAddress: string): string {
  return [...new Set(addresses.map((a) => a.toLowerCase()).filter((a) => a && a !== inboxAddress))].sort().join(",");
}
