import { randomBytes } from "node:crypto";

/** Every id prefix in the product, one place (SPEC §2). */
export const ID_PREFIXES = {
  workspace: "ws",
  member: "mem",
  agent: "agent",
  apiKey: "key",
  audit: "aud",
  request: "req",
  webhookEvent: "whm",
  user: "usr",
  invitation: "inv",
  outboundMail: "mail",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * `<prefix>_<26 chars>`: 48 bits of milliseconds then 80 random bits, Crockford base32 (ULID
 * layout, lower case). Ids sort by creation time, so cursors can page by id.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(now, 0, 6);
  randomBytes(10).copy(bytes, 6);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return `${ID_PREFIXES[kind]}_${out}`;
}

const ID_SHAPE = /^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `id` has the shape of an id of this kind (says nothing of existence). */
export function isId(kind: IdKind, id: string): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`) && ID_SHAPE.test(id);
}
