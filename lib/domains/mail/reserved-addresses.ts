import { AppError } from "../../platform/errors";
import { env } from "../../platform/config/env";

/**
 * Local parts no tenant may take on the shared mail domain: RFC 2142's role mailboxes, the
 * names certificate authorities mail to prove control of a domain (CA/Browser Forum BR
 * 3.2.2.4.4: admin, administrator, webmaster, hostmaster, postmaster), and the usual system
 * senders. Whoever holds them could get certificates issued or answer abuse reports.
 */
export const RESERVED_LOCAL_PARTS = [
  // RFC 2142 §3-5
  "info", "marketing", "sales", "support", "abuse", "noc", "security", "postmaster", "hostmaster", "usenet", "news", "webmaster", "www", "uucp", "ftp",
  // CA domain validation and system mailboxes
  "admin", "administrator", "root", "ssladmin", "ssladministrator", "sslwebmaster", "it", "mailer-daemon", "nobody", "noreply", "no-reply", "security-alert", "dmarc", "bounce", "bounces",
] as const;

/** The local part of MAIL_FROM (`AgentDraft <agentdraft@localhost>` → `agentdraft`). */
function mailFromLocalPart(): string | null {
  const from = env().MAIL_FROM;
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return address.includes("@") ? address.slice(0, address.lastIndexOf("@")).trim().toLowerCase() : null;
}

export function reservedLocalParts(): Set<string> {
  const extra = env()
    .MAIL_RESERVED_LOCAL_PARTS.split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const fromPart = mailFromLocalPart();
  return new Set([...RESERVED_LOCAL_PARTS, ...extra, ...(fromPart ? [fromPart] : [])]);
}

/** 409 for a username on the reserved list, before anything is written. */
export function assertNotReserved(username: string): void {
  if (reservedLocalParts().has(username.toLowerCase())) {
    throw new AppError("conflict", `The address ${username}@… is reserved: role and system mailboxes (RFC 2142, certificate validation, MAIL_FROM, MAIL_RESERVED_LOCAL_PARTS) cannot be given to an agent.`, {
      errors: [{ field: "username", message: "reserved" }],
      reason: "reserved_address",
    });
  }
}
