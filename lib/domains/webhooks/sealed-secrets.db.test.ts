import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { queryable, transaction } from "../../../db/transaction";
import { webhookEndpoints } from "../../../db/schema";
import { resetEnvCache } from "../../platform/config/env";
import { resetSecretBoxCache } from "../../platform/crypto/secret-box";
import { emitEvent } from "../../platform/events/emit-event";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { startReceiver } from "../../../test/helpers/webhook-receiver";
import { runCli } from "../../../cli/main";
import { createEndpoint } from "./create-endpoint";
import { rotateSecret } from "./rotate-secret";
import { deliverDueWebhooks } from "./deliver";
import { generateSecret } from "./secret";

// Each test sets AGENTDRAFT_ENCRYPTION_KEYS itself (rotation); every request goes to a receiver on 127.0.0.1.
const oldKey = randomBytes(32).toString("base64");
const newKey = randomBytes(32).toString("base64");
const saved = { keys: process.env.AGENTDRAFT_ENCRYPTION_KEYS, hosts: process.env.WEBHOOK_ALLOWED_HOSTS };
const useKeys = (keys: string) => {
  process.env.AGENTDRAFT_ENCRYPTION_KEYS = keys;
  resetEnvCache();
  resetSecretBoxCache();
};
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1/32";
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  for (const [k, v] of [["AGENTDRAFT_ENCRYPTION_KEYS", saved.keys], ["WEBHOOK_ALLOWED_HOSTS", saved.hosts]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
  resetSecretBoxCache();
});

const stored = async (id: string) => {
  const q = await queryable();
  return (await q.select({ secret: webhookEndpoints.secret, previous: webhookEndpoints.previousSecret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
};
const keyIdOf = (sealed: string) => sealed.split(".")[1];

/** Emits one event, delivers it, and returns the request the receiver got. */
async function deliverOne(actor: Awaited<ReturnType<typeof newWorkspace>>["actor"]) {
  receiver.received.length = 0;
  await transaction((tx) => emitEvent(tx, actor, { type: "email.sent", data: {} }));
  expect(await deliverDueWebhooks({ workspaceId: actor.workspaceId })).toMatchObject({ succeeded: 1 });
  return receiver.received[0]!;
}
const verifies = (secret: string, r: { body: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>);

describe("webhook endpoint secrets at rest", () => {
  it("are stored sealed, the previous one too, and still open after the encryption key rotates", async () => {
    useKeys(oldKey);
    const { actor } = await newWorkspace();
    const endpoint = await createEndpoint(actor, { url: `${receiver.url}/hook` });
    expect(endpoint.secret).toMatch(/^whsec_/); // shown opened, this once
    const atRest = await stored(endpoint.id);
    expect(atRest.secret).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(atRest.secret).not.toContain(endpoint.secret.slice(6, 20));
    expect(verifies(endpoint.secret, await deliverOne(actor))).toBeTruthy();

    // A new key goes first; the old one stays to open what it sealed.
    useKeys(`${newKey},${oldKey}`);
    expect(verifies(endpoint.secret, await deliverOne(actor))).toBeTruthy();
    const rotated = await rotateSecret(actor, endpoint.id);
    const after = await stored(endpoint.id);
    expect(after.secret).toMatch(/^v1\./);
    expect(after.previous).toMatch(/^v1\./);
    expect(keyIdOf(after.secret)).not.toBe(keyIdOf(atRest.secret));
    expect(keyIdOf(after.previous!)).toBe(keyIdOf(after.secret));
    const r = await deliverOne(actor);
    expect(verifies(rotated.secret, r)).toBeTruthy();
    expect(verifies(endpoint.secret, r)).toBeTruthy();
  });

  it("stored in plain text before the upgrade keep signing, and `db migrate` seals them once", async () => {
    useKeys(oldKey);
    const { actor } = await newWorkspace();
    const endpoint = await createEndpoint(actor, { url: `${receiver.url}/hook` });
    // The row as an older release wrote it: both secrets in the clear.
    const legacy = generateSecret();
    const legacyPrevious = generateSecret();
    const q = await queryable();
    await q
      .update(webhookEndpoints)
      .set({ secret: legacy, previousSecret: legacyPrevious, previousSecretExpiresAt: new Date(Date.now() + 3_600_000) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const before = await deliverOne(actor);
    expect(verifies(legacy, before)).toBeTruthy();
    expect(verifies(legacyPrevious, before)).toBeTruthy();

    const out: string[] = [];
    const code = await runCli(["db", "migrate", "--json"], { write: (t: string) => out.push(t) }, { write: () => true });
    expect(code).toBe(0);
    expect(JSON.parse(out.join("")).sealed_webhook_secrets).toBeGreaterThanOrEqual(1);
    const sealed = await stored(endpoint.id);
    expect(sealed.secret).toMatch(/^v1\./);
    expect(sealed.previous).toMatch(/^v1\./);
    const after = await deliverOne(actor);
    expect(verifies(legacy, after)).toBeTruthy();
    expect(verifies(legacyPrevious, after)).toBeTruthy();

    // Idempotent: a second run leaves the sealed row as it is.
    expect(await runCli(["db", "migrate"], { write: () => true }, { write: () => true })).toBe(0);
    expect(await stored(endpoint.id)).toEqual(sealed);
  });
});
