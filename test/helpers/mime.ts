import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type Mail from "nodemailer/lib/mailer";

/** Real RFC 5322 bytes, composed by nodemailer (the way a relay would hand them over). */
export async function composeMime(mail: Mail.Options & { headers?: Record<string, string> }): Promise<Buffer> {
  return new MailComposer({ date: new Date("2026-01-05T09:00:00Z"), ...mail }).compile().build();
}
