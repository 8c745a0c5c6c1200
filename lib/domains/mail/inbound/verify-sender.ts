import { authenticate, type DNSResolver } from "mailauth";
import { FAILING_VERDICTS, LOCAL_AUTHSERV_ID, type SenderAuth } from "./sender-auth";

// Only the SMTP listener verifies senders itself, so only it imports this file and with it
// mailauth (and mailauth's joi, tldts, DNS and crypto code). Every other route, the Inngest
// route included, reaches sender-auth.ts alone: `sender-auth-imports.test.ts` guards it.

/**
 * SMTP: we are the receiving MTA, so we check SPF (client IP, HELO, MAIL FROM), DKIM and DMARC
 * ourselves (mailauth). `resolver` is DNS (tests inject one). A DNS failure is a temperror verdict.
 */
export async function verifySender(raw: Buffer, session: { ip: string; helo: string; mailFrom: string | null; resolver?: DNSResolver }): Promise<SenderAuth> {
  const result = await authenticate(raw, {
    ip: session.ip,
    helo: session.helo,
    sender: session.mailFrom ?? "",
    mta: LOCAL_AUTHSERV_ID,
    resolver: session.resolver,
    disableArc: true,
    disableBimi: true,
  });
  const dkim = result.dkim?.results?.find((r) => r.status?.result === "pass")?.status?.result ?? result.dkim?.results?.[0]?.status?.result ?? "none";
  const out = { spf: result.spf ? String((result.spf as { status?: { result?: string } }).status?.result ?? "none") : "none", dkim, dmarc: result.dmarc ? String((result.dmarc as { status?: { result?: string } }).status?.result ?? "none") : "none", checked_by: LOCAL_AUTHSERV_ID };
  return { ...out, failed: [out.spf, out.dkim, out.dmarc].some((v) => FAILING_VERDICTS.has(v)) };
}
