import { randomBytes } from "node:crypto";
import { open, seal } from "../../platform/crypto/secret-box";

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

/** How a secret is stored: sealed under AGENTDRAFT_ENCRYPTION_KEYS, like every other secret at rest. */
export const sealSecret = (secret: string): string => seal(secret);

/**
 * A stored secret, opened. A row written before secrets were sealed (migration 0047) still holds
 * `whsec_...` until `db migrate` seals it (sealPlainSecrets): it is read as is meanwhile, so an
 * upgrade never stops deliveries.
 */
export const openSecret = (stored: string): string => (stored.startsWith(SECRET_PREFIX) ? stored : open(stored));
