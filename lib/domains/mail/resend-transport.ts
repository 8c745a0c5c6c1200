import type { Resend } from "resend";
import { resendClient } from "./resend-client";
import type { MailTransport } from "./mail-transport";

/** A provider refused or failed a message. `permanent`: retrying the same message cannot succeed. */
export class TransportError extends Error {
  override name = "TransportError";
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/**
 * Sends through Resend's API. A refusal throws a TransportError: a 4xx other than 429 is
 * permanent (the message itself is wrong), anything else may pass on a retry. The
 * idempotency key makes a retry after a lost response send nothing twice.
 */
export function resendTransport(client: Resend | string): MailTransport {
  const resend = typeof client === "string" ? resendClient(client)! : client;
  return async ({ from, to, cc, bcc, subject, text, html, replyTo, headers, attachments, idempotencyKey }) => {
    let result: Awaited<ReturnType<Resend["emails"]["send"]>>;
    try {
      result = await resend.emails.send(
        { from, to, subject, text, ...(cc?.length ? { cc } : {}), ...(bcc?.length ? { bcc } : {}), ...(html ? { html } : {}), ...(replyTo ? { replyTo } : {}), ...(headers ? { headers } : {}),
          // Resend's API takes { filename, content (base64), content_type }: the client encodes a Buffer.
          ...(attachments?.length ? { attachments: attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })) } : {}) },
        idempotencyKey ? { idempotencyKey } : undefined,
      );
    } catch (err) {
      throw new TransportError(`Resend could not be reached: ${(err as Error).message}`, false);
    }
    const { data, error } = result;
    if (error || !data) {
      const status = error?.statusCode ?? null;
      const permanent = status !== null && status >= 400 && status < 500 && status !== 429;
      throw new TransportError(`Resend refused the message${status ? ` (${status})` : ""}: ${error?.message ?? "no id returned"}`, permanent);
    }
    return { providerId: data.id };
  };
}
