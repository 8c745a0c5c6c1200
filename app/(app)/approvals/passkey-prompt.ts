import { startAuthentication } from "@simplewebauthn/browser";
import type { DecisionOptions } from "@/lib/domains/approvals/decide-with-passkey";

/** Why the browser's passkey prompt did not produce an assertion, in words (`needing`: what needs the passkey, "deciding"). */
export function ceremonyError(err: unknown, needing: string): string {
  const name = err instanceof Error ? err.name : "";
  if (name === "NotAllowedError" || name === "AbortError") return "The passkey prompt was cancelled or timed out: nothing was recorded.";
  if (name === "NotSupportedError") return `This browser cannot use passkeys: ${needing} needs one.`;
  return `Your passkey could not be used (${err instanceof Error ? err.message : "unknown error"}): nothing was recorded.`;
}

/** The browser's passkey prompt over a challenge the server issued: the assertion, or why there is none. */
export async function promptPasskey(options: DecisionOptions, needing: string): Promise<{ assertion: unknown } | { error: string }> {
  try {
    return { assertion: await startAuthentication(options) };
  } catch (err) {
    return { error: ceremonyError(err, needing) };
  }
}
