import { randomFillSync } from "node:crypto";

/** Every id prefix in the product, one place (SPEC §2). */
export const ID_PREFIXES = {
  workspace: "ws",
  member: "mem",
  agent: "agent",
  apiKey: "key",
  audit: "aud",
  request: "req",
  webhookEvent: "whm",
  calendar: "cal",
  hold: "hold",
  calendarEvent: "evt",
  inbox: "inbox",
  mailDomain: "dom",
  thread: "thr",
  message: "msg",
  attachment: "att",
  approval: "appr",
  approvalDecision: "apd",
  approvalPolicy: "apol",
  signingKey: "sk",
  auditCheckpoint: "ckpt",
  webhookEndpoint: "whe",
  webhookDelivery: "whd",
  user: "usr",
  invitation: "inv",
  outboundMail: "mail",
  trace: "trace",
  googleConnection: "gconn",
  googleLink: "glink",
  googleBusy: "gbusy",
  googleExport: "gexp",
  notificationChannel: "nch",
  notificationMessage: "ntm",
  handoff: "hof",
  handoffClaim: "hclm",
  lease: "lease",
  messageClaim: "mclm",
  eventStream: "evs",
  capturedEffect: "cap",
  oauthClient: "oac",
  draft: "drf",
  calendarOrphan: "corph",
  scimToken: "scimtok",
  scimUser: "scimu",
  scimGroup: "scimg",
  ssoConnection: "ssoconn",
  ssoDomain: "ssodom",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

let lastTime = 0;
const lastRandom = new Uint8Array(10);

/** Random bytes drawn 4 KiB at a time: one call into the crypto library per 409 ids, not one per id. */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function fillRandom(into: Uint8Array): void {
  if (poolAt + into.length > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  into.set(pool.subarray(poolAt, poolAt + into.length));
  poolAt += into.length;
}

/** Adds one to a big-endian 80-bit number, wrapping at 2^80. */
function increment(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    bytes[i] = (bytes[i]! + 1) & 0xff;
    if (bytes[i] !== 0) return;
  }
}

/** 48 bits of milliseconds then 80 bits of `random`, as 26 Crockford base32 characters (10 + 16). */
export function encodeId(time: number, random: Uint8Array): string {
  let out = "";
  for (let i = 9, t = time; i >= 0; i--, t = Math.floor(t / 32)) out = CROCKFORD[t % 32] + out;
  let buffer = 0;
  let bits = 0;
  for (const byte of random) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/**
 * `<prefix>_<26 chars>`: 48 bits of milliseconds then 80 random bits, Crockford base32 (ULID
 * layout, lower case). Ids sort by creation time, so cursors can page by id; within one
 * millisecond a process increments the random part (monotonic ULID), so its ids stay ordered.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  let time = now;
  if (time <= lastTime) {
    time = lastTime;
    increment(lastRandom);
  } else {
    fillRandom(lastRandom);
  }
  lastTime = time;
  return `${ID_PREFIXES[kind]}_${encodeId(time, lastRandom)}`;
}

const ID_SHAPE = /^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `id` has the shape of an id of this kind (says nothing of existence). */
export function isId(kind: IdKind, id: string): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`) && ID_SHAPE.test(id);
}
