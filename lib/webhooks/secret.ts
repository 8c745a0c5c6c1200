import { randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks format). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** The HMAC key a secret stands for: the base64-decoded bytes after `whsec_`. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("webhook secret must start with whsec_");
  return Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
}
