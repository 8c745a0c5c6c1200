import { env, type Env } from "./env";

/** A domain no mail provider can send from (`localhost`, `*.localhost`, RFC 6761's reserved names). */
const UNSENDABLE_DOMAIN = /(^|\.)(localhost|local|test|invalid|example)$/i;

/** The domain of MAIL_FROM (`AgentDraft <agentdraft@localhost>` → `localhost`). */
export function mailFromDomain(from: string): string {
  const address = from.match(/<([^>]*)>\s*$/)?.[1] ?? from;
  return address.slice(address.lastIndexOf("@") + 1).trim().toLowerCase();
}

/**
 * Production mail settings that would fail every send, or silently send nothing: with Resend,
 * the development defaults of the inbox domain and the sender; without it, mail is only captured
 * in the database, which production accepts only when MAIL_CAPTURE_ONLY says so.
 */
export function productionMailProblem(e: Env = env()): string | null {
  if (e.NODE_ENV !== "production") return null;
  if (!e.RESEND_API_KEY) {
    if (e.MAIL_CAPTURE_ONLY) return null;
    return (
      "RESEND_API_KEY is not set: mail would only be captured in the database (shown in the web app), never sent. " +
      "Set RESEND_API_KEY (and a verified AGENTDRAFT_MAIL_DOMAIN and MAIL_FROM), or set MAIL_CAPTURE_ONLY=1 to run without sending mail."
    );
  }
  if (UNSENDABLE_DOMAIN.test(e.AGENTDRAFT_MAIL_DOMAIN)) {
    return `AGENTDRAFT_MAIL_DOMAIN is "${e.AGENTDRAFT_MAIL_DOMAIN}": Resend refuses every send from it. Set it to a domain verified in Resend (for example agents.example.com).`;
  }
  const fromDomain = mailFromDomain(e.MAIL_FROM);
  if (!fromDomain.includes(".") || UNSENDABLE_DOMAIN.test(fromDomain)) {
    return `MAIL_FROM is "${e.MAIL_FROM}": Resend refuses every send from ${fromDomain}. Set MAIL_FROM to an address on a domain verified in Resend (for example "AgentDraft <agentdraft@agents.example.com>").`;
  }
  return null;
}
