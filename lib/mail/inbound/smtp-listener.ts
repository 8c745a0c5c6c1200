import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { AppError } from "../../errors";
import { env } from "../../config/env";
import { inboxesFor, ingestMessage } from "./ingest-message";

type SmtpError = Error & { responseCode?: number };
const smtpError = (code: number, message: string): SmtpError => Object.assign(new Error(message), { responseCode: code });

/**
 * An SMTP listener for self-hosters: accepts mail only for known inbox addresses (550
 * otherwise), refuses messages over MAIL_MAX_BYTES (552), and hands the raw bytes to the
 * same ingestion as the HTTP endpoints. No AUTH: it is an MX, not a submission server.
 */
export function createSmtpListener(options: { log?: (line: string) => void; tls?: Pick<SMTPServerOptions, "key" | "cert"> } = {}): SMTPServer {
  const log = options.log ?? (() => {});
  const limit = env().MAIL_MAX_BYTES;
  return new SMTPServer({
    ...options.tls,
    secure: false,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    authOptional: true,
    size: limit,
    banner: "AgentDraft inbound",
    logger: false,
    closeTimeout: 2000,
    onRcptTo(address, _session, callback) {
      inboxesFor([address.address]).then(
        (found) => callback(found.length ? undefined : smtpError(550, `5.1.1 <${address.address}>: no such inbox`)),
        (err: Error) => callback(smtpError(451, `4.3.0 temporary failure: ${err.message}`)),
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(smtpError(552, `5.3.4 message exceeds the ${limit}-byte limit`));
          return;
        }
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        ingestMessage(Buffer.concat(chunks), { recipients, source: "smtp" }).then(
          (deliveries) => {
            log(`accepted from ${session.envelope.mailFrom ? session.envelope.mailFrom.address : "<>"} for ${recipients.join(", ")}: ${deliveries.map((d) => d.message_id ?? d.refused).join(", ")}`);
            callback(null, deliveries.map((d) => d.message_id).filter(Boolean).join(" ") || "accepted");
          },
          (err: Error) => {
            log(`refused: ${err.message}`);
            if (err instanceof AppError && err.status < 500) callback(smtpError(err.code === "payload_too_large" ? 552 : 554, `5.6.0 ${err.message}`));
            else callback(smtpError(451, "4.3.0 temporary failure, try again later"));
          },
        );
      });
    },
  });
}
