/**
 * Shared test vectors for the Python SDK's verifiers, made with the TypeScript code the server
 * and the TS SDK use: webhooks signed by the server's signer (lib/domains/webhooks/sign.ts) and
 * the standardwebhooks package, approval receipts signed the way lib/domains/approvals/receipts.ts
 * signs them (jose, EdDSA), RFC 8032's Ed25519 vectors, and canonical JSON with its hashes. Fixed
 * keys and times, so the file is the same on every run; `npm run sdk:generate` writes it, and
 * sdk-python/codegen/generated.test.ts checks it is current and that the TS verifiers agree.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { CompactSign } from "jose";
import { Webhook } from "standardwebhooks";
import { signedHeaders } from "../../lib/domains/webhooks/sign";
import { canonicalJson } from "../../lib/platform/crypto/canonical-json";
import { actionHash, evidenceHash, RECEIPT_TYPE, summaryHash, type ReceiptPayload } from "../../lib/domains/approvals/receipts";

export const VECTORS_FILE = "sdk-python/tests/fixtures/vectors.json";

const NOW = 1_924_000_000; // 2030-12-18, fixed
const secret = (fill: number) => `whsec_${Buffer.alloc(32, fill).toString("base64")}`;
const [S1, S2, S3] = [secret(1), secret(2), secret(3)];
const BODY = JSON.stringify({ type: "hold.preempted", id: "whm_1", created_at: "2030-12-18T09:00:00.000Z", data: { hold_id: "hold_1", by_priority: 90, note: "café ☕" } });

function webhookVectors() {
  const signed = signedHeaders([S1], "whm_1", NOW, BODY);
  const rotation = signedHeaders([S2, S1], "whm_1", NOW, BODY);
  const library = new Webhook(S3).sign("whm_2", new Date(NOW * 1000), BODY);
  const v = (name: string, headers: Record<string, string>, secrets: string | string[], valid: boolean, extra: { body?: string; now?: number; tolerance_seconds?: number } = {}) => ({
    name,
    body: extra.body ?? BODY,
    headers,
    secret: secrets,
    now: extra.now ?? NOW,
    ...(extra.tolerance_seconds ? { tolerance_seconds: extra.tolerance_seconds } : {}),
    valid,
  });
  return [
    v("signed by the server's signer", signed, S1, true),
    v("header names in any case", Object.fromEntries(Object.entries(signed).map(([k, val]) => [k.toUpperCase(), val])), S1, true),
    v("signed by the standardwebhooks package", { "webhook-id": "whm_2", "webhook-timestamp": String(NOW), "webhook-signature": library }, S3, true),
    v("rotation: two signatures, the old secret", rotation, S1, true),
    v("rotation: two signatures, the new secret", rotation, S2, true),
    v("several secrets on the receiving side", signed, [S3, S1], true),
    v("a wrong secret", signed, S2, false),
    v("a changed body", signed, S1, false, { body: BODY.replace("90", "99") }),
    v("another webhook-id", { ...signed, "webhook-id": "whm_9" }, S1, false),
    v("garbage signatures", { ...signed, "webhook-signature": "v1,!!!not-base64 v2,abc" }, S1, false),
    v("a v1 signature among unknown versions", { ...signed, "webhook-signature": `v1a,xyz ${signed["webhook-signature"]}` }, S1, true),
    v("301 s old", signed, S1, false, { now: NOW + 301 }),
    v("301 s old with a tolerance of 600", signed, S1, true, { now: NOW + 301, tolerance_seconds: 600 }),
    v("400 s in the future", signed, S1, false, { now: NOW - 400 }),
    v("a timestamp that is not Unix seconds", { ...signed, "webhook-timestamp": "soon" }, S1, false),
    v("no signature header", { "webhook-id": signed["webhook-id"]!, "webhook-timestamp": signed["webhook-timestamp"]! }, S1, false),
  ];
}

/** RFC 8032 section 7.1, tests 1-3 (and test 2 with a flipped bit, and with s + L). */
function ed25519Vectors() {
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const t2 = {
    public_key: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  };
  const s = BigInt("0x" + Buffer.from(t2.signature.slice(64), "hex").reverse().toString("hex")) + L;
  const sPlusL = Buffer.from(s.toString(16).padStart(64, "0"), "hex").reverse().toString("hex");
  return [
    {
      name: "RFC 8032 test 1 (empty message)",
      public_key: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
      message: "",
      signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
      valid: true,
    },
    { name: "RFC 8032 test 2", ...t2, valid: true },
    {
      name: "RFC 8032 test 3",
      public_key: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
      message: "af82",
      signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
      valid: true,
    },
    { name: "test 2, another message", ...t2, message: "73", valid: false },
    { name: "test 2, a flipped bit in R", ...t2, signature: "93" + t2.signature.slice(2), valid: false },
    { name: "test 2, s + L (not canonical)", ...t2, signature: t2.signature.slice(0, 64) + sPlusL, valid: false },
  ];
}

/** A fixed Ed25519 key from a 32-byte seed (PKCS#8: the RFC 8410 prefix and the seed). */
function ed25519Key(fill: number, kid: string): { privateKey: KeyObject; jwk: Record<string, string> } {
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.alloc(32, fill)]);
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const { kty, crv, x } = createPublicKey(privateKey).export({ format: "jwk" }) as Record<string, string>;
  return { privateKey, jwk: { kty: kty!, crv: crv!, x: x!, kid, alg: "EdDSA", use: "sig" } };
}

const WORKSPACE = "ws_receipts1";
const ACTION = { type: "refund", order: 8812, amount: 120, currency: "EUR" };

function payload(status: ReceiptPayload["status"]): ReceiptPayload {
  return {
    approval_id: "apr_receipt1",
    workspace_id: WORKSPACE,
    agent_id: "agent_1",
    status,
    decided_by: ["mem_1"],
    decided_at: "2030-12-18T09:00:00.000Z",
    required_approvals: 1,
    action_class: "refund",
    amount: 120,
    currency: "EUR",
    action_sha256: actionHash(ACTION),
    summary_sha256: summaryHash("Refund order 8812"),
    evidence_sha256: evidenceHash({ order: 8812, reason: "damaged" }),
    expires_at: "2030-12-19T09:00:00.000Z",
  };
}

/** Signed as signReceipt does: the payload's JSON, protected header {alg, kid, typ}. */
async function sign(body: unknown, key: KeyObject, kid: string, typ = RECEIPT_TYPE): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(body))).setProtectedHeader({ alg: "EdDSA", kid, typ }).sign(key);
}

async function receiptVectors() {
  const current = ed25519Key(7, "sk_current");
  const older = ed25519Key(8, "sk_older");
  const stranger = ed25519Key(9, "sk_current"); // another workspace's key, same kid
  const jwks = { keys: [current.jwk, older.jwk] };
  const approved = await sign(payload("approved"), current.privateKey, "sk_current");
  const [h, p, s] = approved.split(".") as [string, string, string];
  const otherPayload = Buffer.from(JSON.stringify({ ...payload("approved"), amount: 1200 })).toString("base64url");
  const v = (name: string, receipt: string, valid: boolean, workspace_id = WORKSPACE, set: unknown = jwks) => ({ name, receipt, jwks: set, workspace_id, valid });
  return {
    action: ACTION,
    vectors: [
      v("approved, signed by the current key", approved, true),
      v("denied, signed by an older key still in the set", await sign(payload("denied"), older.privateKey, "sk_older"), true),
      v("checked against another workspace", approved, false, "ws_other"),
      v("a payload swapped under the signature", `${h}.${otherPayload}.${s}`, false),
      v("signed by another workspace's key with the same kid", await sign(payload("approved"), stranger.privateKey, "sk_current"), false),
      v("a kid not in the set", await sign(payload("approved"), current.privateKey, "sk_unknown"), false),
      v("another token type", await sign(payload("approved"), current.privateKey, "sk_current", "JWT"), false),
      v("an empty key set", approved, false, WORKSPACE, { keys: [] }),
      v("not a JWS", `${h}.${p}`, false),
    ],
  };
}

const CANONICAL_VALUES: unknown[] = [
  ACTION,
  { b: [1, 2.5, -0, 1e-7, 1e21, 123456789012345680000, 0.1, 100], a: null, c: { z: true, y: false, x: "" } },
  { "é": 1, e: 2, "😀": 3, "\uffff": 4, "\u0000ctl\n": "tab\there \"quoted\" \\ back" },
  ["unicode ☕ and \u2028 line separator", { nested: [{ deeper: [[]] }, {}] }],
  "a string",
  42,
];

export async function buildVectors(): Promise<Record<string, unknown>> {
  const receipts = await receiptVectors();
  return {
    comment: "Generated by sdk-python/codegen/vectors.ts (npm run sdk:generate). Do not edit.",
    webhooks: webhookVectors(),
    ed25519: ed25519Vectors(),
    receipts: receipts.vectors,
    receipt_action: { action: receipts.action, action_sha256: actionHash(receipts.action) },
    canonical_json: CANONICAL_VALUES.map((value) => ({ value, canonical: canonicalJson(value), sha256: evidenceHash(value) })),
  };
}

export async function vectorsFile(): Promise<string> {
  return `${JSON.stringify(await buildVectors(), null, 2)}\n`;
}
