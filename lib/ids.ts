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
  calendar: "cal",
  hold: "hold",
  calendarEvent: "evt",
  inbox: "inbox",
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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

let lastTime = 0;
let lastRandom = 0n;

/**
 * `<prefix>_<26 chars>`: 48 bits of milliseconds then 80 random bits, Crockford base32 (ULID
 * layout, lower case). Ids sort by creation time, so cursors can page by id; within one
 * millisecond a process increments the random part (monotonic ULID), so its ids stay ordered.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  let time = now;
  let random: bigint;
  if (time <= lastTime) {
    time = lastTime;
    random = (lastRandom + 1n) & ((1n << 80n) - 1n);
  } else {
    random = BigInt(`0x${randomBytes(10).toString("hex")}`);
  }
  lastTime = time;
  lastRandom = random;
  let bits = (BigInt(time) << 80n) | random;
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
