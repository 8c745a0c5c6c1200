import { Resend } from "resend";
import type { MailTransport } from "./send-mail";

/** Sends through Resend's API. A refused message throws, so the caller sees the failure. */
export function resendTransport(apiKey: string): MailTransport {
  const resend = new Resend(apiKey);
  return async ({ from, to, subject, text, html, replyTo }) => {
    const { data, error } = await resend.emails.send({ from, to, subject, text, ...(html ? { html } : {}), ...(replyTo ? { replyTo } : {}) });
    if (error || !data) throw new Error(`Resend refused the message: ${error?.message ?? "no id returned"}`);
    return { providerId: data.id };
  };
}
