import fs from "node:fs";
import { verify as nodeVerify, createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../sdk/src/webhooks";
import { verifyReceipt } from "../../lib/domains/approvals/receipts";
import { canonicalJson } from "../../lib/platform/crypto/canonical-json";
import { generatePythonSdk, OPERATIONS_FILE } from "./generate";
import { VECTORS_FILE, vectorsFile } from "./vectors";

type WebhookVector = { name: string; body: string; headers: Record<string, string>; secret: string | string[]; now: number; tolerance_seconds?: number; valid: boolean };
type Ed25519Vector = { name: string; public_key: string; message: string; signature: string; valid: boolean };
type ReceiptVector = { name: string; receipt: string; jwks: { keys: Record<string, string>[] }; workspace_id: string; valid: boolean };

describe("the Python SDK's generated files", () => {
  it("match the API's OpenAPI document (run `npm run sdk:generate` after changing an operation)", () => {
    for (const [file, text] of Object.entries(generatePythonSdk())) {
      expect(fs.readFileSync(file, "utf8") === text, `${file} is stale: run \`npm run sdk:generate\` and commit it`).toBe(true);
    }
    const operations = fs.readFileSync(OPERATIONS_FILE, "utf8");
    for (const name of ["place_hold", "commit_hold", "request_approval", "consume_approval", "acquire_lease", "claim_message", "create_draft", "create_handoff", "get_trace", "add_agent_note", "create_webhook_endpoint", "iter_holds"]) {
      expect(operations).toContain(`    def ${name}(`);
    }
  });

  it("the shared test vectors are current", async () => {
    expect(fs.readFileSync(VECTORS_FILE, "utf8") === (await vectorsFile()), `${VECTORS_FILE} is stale: run \`npm run sdk:generate\``).toBe(true);
  });
});

describe("the shared test vectors, checked with the TypeScript implementations", () => {
  const vectors = JSON.parse(fs.readFileSync(VECTORS_FILE, "utf8")) as {
    webhooks: WebhookVector[];
    ed25519: Ed25519Vector[];
    receipts: ReceiptVector[];
    canonical_json: { value: unknown; canonical: string }[];
  };

  it.each(vectors.webhooks)("webhook: $name", async (v) => {
    const outcome = verifyWebhook(v.body, v.headers, v.secret, { now: new Date(v.now * 1000), toleranceSeconds: v.tolerance_seconds });
    if (v.valid) await expect(outcome).resolves.toEqual(JSON.parse(v.body));
    else await expect(outcome).rejects.toThrow();
  });

  it.each(vectors.ed25519)("Ed25519: $name", (v) => {
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(v.public_key, "hex").toString("base64url") }, format: "jwk" });
    expect(nodeVerify(null, Buffer.from(v.message, "hex"), key, Buffer.from(v.signature, "hex"))).toBe(v.valid);
  });

  it.each(vectors.receipts)("receipt: $name", async (v) => {
    const outcome = verifyReceipt(v.receipt, v.jwks, v.workspace_id);
    if (v.valid) await expect(outcome).resolves.toMatchObject({ workspace_id: v.workspace_id });
    else await expect(outcome).rejects.toThrow();
  });

  it("canonical JSON survives the fixture's own JSON round trip", () => {
    for (const c of vectors.canonical_json) expect(canonicalJson(JSON.parse(JSON.stringify(c.value)))).toBe(c.canonical);
  });
});
