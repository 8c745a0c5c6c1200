import { createSmtpListener } from "../lib/domains/mail/inbound/smtp-listener";
import { UsageError } from "./errors";
import type { Command } from "./command";

const USAGE = "agentdraft smtp [--port 2525] [--host 0.0.0.0]";

/** Runs the inbound SMTP listener until SIGINT/SIGTERM. */
export const smtpCommand: Command = {
  usage: USAGE,
  summary: "Receive mail over SMTP for known inbox addresses (550 for others, 552 over MAIL_MAX_BYTES).",
  flags: { port: "string", host: "string" },
  run: async (flags) => {
    const port = Number(flags.port ?? 2525);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be 1-65535. Usage: ${USAGE}`);
    const host = typeof flags.host === "string" ? flags.host : "0.0.0.0";
    const server = createSmtpListener({ log: (line) => process.stderr.write(`[smtp] ${line}\n`) });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err: Error) => reject(new UsageError(`Cannot listen on ${host}:${port}: ${err.message}`)));
      server.listen(port, host, () => resolve());
    });
    process.stderr.write(`[smtp] listening on ${host}:${port}; Ctrl-C stops\n`);
    await new Promise<void>((resolve) => {
      const stop = () => server.close(() => resolve());
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return { json: { stopped: true, port }, human: ["[smtp] stopped"] };
  },
};
