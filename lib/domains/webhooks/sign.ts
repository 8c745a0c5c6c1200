import { createHmac } from "node:crypto";
import { secretKey } from "./secret";

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the decoded secret (Standard Webhooks). */
export function signatureFor(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers. Several secrets (during a rotation) give several
 * space-separated signatures; a receiver accepts the message if any one verifies.
 */
export function signedHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => signatureFor(s, id, timestampSeconds, body)).join(" "),
  };
}
