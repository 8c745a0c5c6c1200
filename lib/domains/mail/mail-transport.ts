/** Delivers a message to a provider; returns the provider's id. */
export type MailTransport = (mail: {
  from: string;
  to: string[];
  cc?: string[];
  /** Blind copies: the provider delivers to them without naming them in the headers. */
  bcc?: string[];
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
  headers?: Record<string, string>;
  /** Files, sent as base64 in the provider's API call. */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
  /** The provider sends at most once per key (Resend keeps keys for 24 hours). */
  idempotencyKey?: string;
}) => Promise<{ providerId: string }>;
