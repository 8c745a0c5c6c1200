// @suite moved-clock
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { generateSecret, secretKey } from "./secret";
import { signedHeaders } from "./sign";

describe("Standard Webhooks signatures", () => {
  it("makes whsec_ secrets of 32 random bytes", () => {
    const s = generateSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(secretKey(s)).toHaveLength(32);
    expect(generateSecret()).not.toBe(s);
  });

  it("verifies with the standardwebhooks package", () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: "hold.created", id: "whm_1", data: { a: 1 } });
    const headers = signedHeaders([secret], "whm_1", Math.floor(Date.now() / 1000), body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("sends one signature per secret during a rotation, and each secret verifies alone", () => {
    const [a, b] = [generateSecret(), generateSecret()];
    const body = '{"x":1}';
    const headers = signedHeaders([a, b], "whm_2", Math.floor(Date.now() / 1000), body);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(a).verify(body, headers)).toEqual({ x: 1 });
    expect(new Webhook(b).verify(body, headers)).toEqual({ x: 1 });
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify('{"x":2}', headers)).toThrow();
  });
});
