import type { Socket } from "node:net";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { inboxesFor, ingestMessage } from "./ingest-message";
import { verifySender } from "./verify-sender";
import type { DNSResolver } from "mailauth";

type SmtpError = Error & { responseCode?: number };
const smtpError = (code: number, message: string): SmtpError => Object.assign(new Error(message), { responseCode: code });

/**
 * An SMTP listener for self-hosters: accepts mail only for known inbox addresses (550
 * otherwise), refuses messages over MAIL_MAX_BYTES (552, without keeping more than the limit
 * in memory), and hands the raw bytes to the same ingestion as the HTTP endpoints. Bounded:
 * SMTP_MAX_CLIENTS connections, SMTP_MAX_RECIPIENTS per message (452), an idle timeout and a
 * total time per connection. No AUTH: it is an MX, not a submission server.
 */
export function createSmtpListener(
  options: { log?: (line: string) => void; tls?: Pick<SMTPServerOptions, "key" | "cert">; /** DNS for SPF/DKIM/DMARC (tests inject one). */ resolver?: DNSResolver } = {},
): SMTPServer {
  const log = options.log ?? (() => {});
  const e = env();
  const limit = e.MAIL_MAX_BYTES;
  const server = new SMTPServer({
    ...options.tls,
    secure: false,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    authOptional: true,
    size: limit,
    maxClients: e.SMTP_MAX_CLIENTS,
    socketTimeout: e.SMTP_SOCKET_TIMEOUT_MS,
    banner: "AgentDraft inbound",
    logger: false,
    closeTimeout: 2000,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= e.SMTP_MAX_RECIPIENTS) {
        // 452: the sender delivers the rest in another transaction (RFC 5321 §4.5.3.1.10).
        callback(smtpError(452, `4.5.3 too many recipients (at most ${e.SMTP_MAX_RECIPIENTS} per message)`));
        return;
      }
      inboxesFor([address.address]).then(
        (found) => callback(found.length ? undefined : smtpError(550, `5.1.1 <${address.address}>: no such inbox`)),
        (err: Error) => callback(smtpError(451, `4.3.0 temporary failure: ${err.message}`)),
      );
    },
    onData(stream, session, callback) {
      // Keep at most the limit: past it, the rest of DATA is read and dropped (memory stays flat).
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= limit) chunks.push(c);
        else chunks.length = 0;
      });
      stream.on("end", () => {
        if (size > limit || (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          log(`refused ${size} bytes over the ${limit}-byte limit`);
          callback(smtpError(552, `5.3.4 message exceeds the ${limit}-byte limit`));
          return;
        }
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        const raw = Buffer.concat(chunks);
        // We are the receiving MTA: every Authentication-Results header in the message is the
        // sender's own claim, so SPF, DKIM and DMARC are verified here instead.
        verifySender(raw, { ip: session.remoteAddress, helo: session.hostNameAppearsAs, mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null, resolver: options.resolver })
          .catch((err: Error) => {
            log(`sender verification failed: ${err.message}`);
            return { spf: "temperror", dkim: "temperror", dmarc: "temperror", checked_by: "agentdraft", failed: false };
          })
          .then((senderAuth) => ingestMessage(raw, { recipients, source: "smtp", senderAuth }))
          .then(
          (deliveries) => {
            log(`accepted from ${session.envelope.mailFrom ? session.envelope.mailFrom.address : "<>"} for ${recipients.join(", ")}: ${deliveries.map((d) => d.message_id ?? d.refused).join(", ")}`);
            callback(null, deliveries.map((d) => d.message_id).filter(Boolean).join(" ") || "accepted");
          },
          (err: Error) => {
            log(`refused: ${err.message}`);
            // 552/554 are permanent: the sender must not retry a message we will never take.
            if (err instanceof AppError && err.status < 500) callback(smtpError(err.code === "payload_too_large" ? 552 : 554, `5.6.0 ${err.message}`));
            else callback(smtpError(451, "4.3.0 temporary failure, try again later"));
          },
        );
      });
    },
  });
  // A connection may not stay forever, however busy it keeps itself (the idle timeout alone does not end a slow drip).
  server.server.on("connection", (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), e.SMTP_MAX_CONNECTION_SECONDS * 1000);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  });
  return server;
}
