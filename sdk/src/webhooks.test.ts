// @suite moved-clock
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { generateSecret } from "../../lib/domains/webhooks/secret";
import { signedHeaders } from "../../lib/domains/webhooks/sign";
import { constantTimeEqual, verifyWebhook, WebhookVerificationError } from "./webhooks";

const body = JSON.stringify({ type: "hold.preempted", id: "whm_1", created_at: "2026-01-05T09:00:00.000Z", data: { hold_id: "hold_1", by_priority: 90 } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("verifyWebhook", () => {
  it("accepts a delivery signed by AgentDraft's signer and returns the event", async () => {
    const secret = generateSecret();
    const event = await verifyWebhook(body, signedHeaders([secret], "whm_1", nowSeconds(), body), secret);
    expect(event).toEqual(JSON.parse(body));
  });

  it("accepts a signature made by the standardwebhooks package, from Headers and from bytes", async () => {
    const secret = generateSecret();
    const at = new Date();
    const signature = new Webhook(secret).sign("whm_2", at, body);
    const headers = new Headers({ "Webhook-Id": "whm_2", "Webhook-Timestamp": String(Math.floor(at.getTime() / 1000)), "Webhook-Signature": signature });
    expect((await verifyWebhook(body, headers, secret)).type).toBe("hold.preempted");
    expect((await verifyWebhook(new TextEncoder().encode(body), headers, secret)).id).toBe("whm_1");
  });

  it("during a rotation: two signatures in the header, either secret verifies; and several secrets on the receiving side", async () => {
    const [oldSecret, newSecret, unrelated] = [generateSecret(), generateSecret(), generateSecret()];
    const headers = signedHeaders([newSecret, oldSecret], "whm_3", nowSeconds(), body);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    await expect(verifyWebhook(body, headers, oldSecret)).resolves.toMatchObject({ id: "whm_1" });
    await expect(verifyWebhook(body, headers, newSecret)).resolves.toMatchObject({ id: "whm_1" });
    await expect(verifyWebhook(body, headers, unrelated)).rejects.toThrow(WebhookVerificationError);
    const single = signedHeaders([newSecret], "whm_3", nowSeconds(), body);
    await expect(verifyWebhook(body, single, [unrelated, newSecret])).resolves.toMatchObject({ id: "whm_1" });
  });

  it("refuses a changed body, another id, a wrong secret, and garbage signatures", async () => {
    const secret = generateSecret();
    const headers = signedHeaders([secret], "whm_4", nowSeconds(), body);
    await expect(verifyWebhook(body.replace("90", "99"), headers, secret)).rejects.toThrow(/No webhook-signature matches/);
    await expect(verifyWebhook(body, { ...headers, "webhook-id": "whm_5" }, secret)).rejects.toThrow(/No webhook-signature matches/);
    await expect(verifyWebhook(body, headers, generateSecret())).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(body, { ...headers, "webhook-signature": "v1,!!!not-base64 v2,abc" }, secret)).rejects.toThrow(/No webhook-signature/);
    // A v1 signature among unknown versions still counts.
    await expect(verifyWebhook(body, { ...headers, "webhook-signature": `v1a,xyz ${headers["webhook-signature"]}` }, secret)).resolves.toBeTruthy();
  });

  it("refuses timestamps outside the tolerance (replays, skewed clocks) and missing headers", async () => {
    const secret = generateSecret();
    const old = signedHeaders([secret], "whm_6", nowSeconds() - 301, body);
    await expect(verifyWebhook(body, old, secret)).rejects.toThrow(/more than 300 s from now/);
    await expect(verifyWebhook(body, old, secret, { toleranceSeconds: 600 })).resolves.toBeTruthy();
    const future = signedHeaders([secret], "whm_6", nowSeconds() + 400, body);
    await expect(verifyWebhook(body, future, secret)).rejects.toThrow(/from now/);
    // A fixed instant, with `now` given: no comparison with the clock.
    const at = new Date("2026-01-05T09:00:00Z");
    const then = signedHeaders([secret], "whm_6", at.getTime() / 1000, body);
    await expect(verifyWebhook(body, then, secret, { now: new Date(at.getTime() + 10_000) })).resolves.toBeTruthy();
    await expect(verifyWebhook(body, { ...then, "webhook-timestamp": "soon" }, secret, { now: at })).rejects.toThrow(/Unix seconds/);
    const { "webhook-signature": _dropped, ...unsigned } = signedHeaders([secret], "whm_7", nowSeconds(), body);
    await expect(verifyWebhook(body, unsigned, secret)).rejects.toThrow(/Missing/);
    await expect(verifyWebhook(body, signedHeaders([secret], "whm_7", nowSeconds(), body), "not-a-secret!")).rejects.toThrow(/whsec_/);
  });

  it("compares in constant time over equal lengths", () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});
