/**
 * Phrases that try to steer an AI agent reading the mail. Flagged, never silently dropped:
 * the agent (and the human reviewing it) decides. Each signal names its pattern and where.
 */
const SIGNALS: { signal: string; pattern: RegExp }[] = [
  { signal: "ignore_instructions", pattern: /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|your|system)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|directions|guidelines)\b/i },
  { signal: "new_instructions", pattern: /\b(new|updated|real|actual)\s+(system\s+)?(instructions?|prompt|directives?)\s*[:\-]/i },
  { signal: "role_override", pattern: /\byou\s+are\s+(now|no\s+longer)\b|\bact\s+as\s+(an?\s+)?(admin|administrator|system|developer|root)\b|\bpretend\s+(to\s+be|you\s+are)\b/i },
  { signal: "system_prompt_probe", pattern: /\b(reveal|print|show|repeat|output|leak)\b[^.\n]{0,30}\b(system\s+prompt|your\s+(instructions|prompt)|hidden\s+instructions)\b/i },
  { signal: "role_markers", pattern: /<\|?(im_start|im_end|system|endoftext)\|?>|^\s*(system|assistant)\s*:\s/im },
  { signal: "exfiltration_request", pattern: /\b(forward|send|upload|post|export|copy)\b[^.\n]{0,30}\b(all|every|each|the\s+entire)\b[^.\n]{0,30}\b(emails?|messages?|inbox|mailbox|credentials?|passwords?|api\s+keys?|tokens?|secrets?)\b/i },
  { signal: "credential_request", pattern: /\b(send|share|give|tell|paste)\s+(me|us)\b[^.\n]{0,20}\b(your|the)\s+(password|credentials?|api\s+key|access\s+token|secret|private\s+key)s?\b/i },
  { signal: "secrecy_request", pattern: /\b(do\s+not|don't|never)\s+(tell|inform|mention|notify|alert)\b[^.\n]{0,30}\b(user|human|anyone|owner|operator|admin)\b/i },
  { signal: "urgent_action", pattern: /\b(immediately|urgently|without\s+(asking|confirmation|approval))\b[^.\n]{0,50}\b(transfer|wire|pay|refund|delete|approve|grant|execute|run)\b/i },
];

export type InjectionSignal = { signal: string; excerpt: string; where: string };

export function findInjectionSignals(parts: { where: string; text: string }[]): InjectionSignal[] {
  const found: InjectionSignal[] = [];
  for (const { where, text } of parts) {
    if (!text) continue;
    for (const { signal, pattern } of SIGNALS) {
      const m = pattern.exec(text);
      if (m) {
        const start = Math.max(0, m.index - 20);
        found.push({ signal, where, excerpt: text.slice(start, m.index + m[0].length + 20).replace(/\s+/g, " ").trim() });
      }
    }
  }
  return found;
}
