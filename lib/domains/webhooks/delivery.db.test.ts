// @suite pooled
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { queryable, transaction } from "../../../db/transaction";
import { auditEntries, members, outboundMail, webhookDeliveries, webhookEndpoints, webhookEvents } from "../../../db/schema";
import { resetEnvCache } from "../../platform/config/env";
import { emitEvent, type EventType } from "../../platform/events/emit-event";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { newAgent, newWorkspace } from "../../../test/helpers/fixtures";
import { startReceiver } from "../../../test/helpers/webhook-receiver";
import { createEndpoint } from "./create-endpoint";
import { rotateSecret } from "./rotate-secret";
import { retryDelivery } from "./retry-delivery";
import { fanOutEvent } from "./fan-out";
import { deliverDueWebhooks, type DeliverOptions } from "./deliver";
import { parseAllowlist } from "../../platform/outbound/ssrf-guard";
import { purgeWebhookHistory } from "./purge-webhook-history";
import type { CreateEndpointInput } from "./schemas";

// Every request in this file goes to a receiver on 127.0.0.1, the only allowlisted address.
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const saved = process.env.WEBHOOK_ALLOWED_HOSTS;
beforeAll(async () => {
  process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1/32";
  resetEnvCache();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  if (saved === undefined) delete process.env.WEBHOOK_ALLOWED_HOSTS;
  else process.env.WEBHOOK_ALLOWED_HOSTS = saved;
  resetEnvCache();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.reply = () => ({ status: 200 });
});

async function setup(filters: Partial<CreateEndpointInput> = {}) {
  const { workspace, actor } = await newWorkspace();
  const agent = await newAgent(workspace.id);
  const endpoint = await createEndpoint(actor, { url: `${receiver.url}/hook`, ...filters });
  return { workspace, actor, agent, endpoint };
}

const emit = (actor: Actor, type: EventType, agentId: string | null = null, data: Record<string, unknown> = {}) =>
  transaction((tx) => emitEvent(tx, actor, { type, agentId, data }));

const run = (workspaceId: string, opts: DeliverOptions = {}) => deliverDueWebhooks({ workspaceId, random: () => 0.5, ...opts });

async function deliveriesOf(endpointId: string) {
  const q = await queryable();
  return q.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).orderBy(webhookDeliveries.id);
}
async function endpointRow(id: string) {
  const q = await queryable();
  return (await q.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
}

describe("webhook delivery", () => {
  it("delivers a signed Standard Webhook that the standardwebhooks package verifies", async () => {
    const { workspace, actor, agent, endpoint } = await setup();
    const event = await emit({ ...actor, traceId: "trace-abc" }, "hold.created", agent.id, { hold_id: "hold_x" });
    expect(await run(workspace.id)).toEqual({ attempted: 1, succeeded: 1 });

    expect(receiver.received).toHaveLength(1);
    const { headers, body, path } = receiver.received[0]!;
    expect(path).toBe("/hook");
    expect(headers["webhook-id"]).toBe(event.id);
    const payload = new Webhook(endpoint.secret).verify(body, headers as Record<string, string>);
    expect(payload).toEqual({ type: "hold.created", id: event.id, created_at: event.createdAt.toISOString(), data: { hold_id: "hold_x" }, trace_id: "trace-abc" });

    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "succeeded", attempts: 1, lastResponseStatus: 200, nextAttemptAt: null, leaseToken: null });
    expect(d!.lastLatencyMs).toBeGreaterThanOrEqual(0);
    expect(await run(workspace.id)).toEqual({ attempted: 0, succeeded: 0 });
  });

  it("emits nothing when the transaction that wrote the event rolls back", async () => {
    const { workspace, actor, endpoint } = await setup();
    await expect(
      transaction(async (tx) => {
        await emitEvent(tx, actor, { type: "email.received", data: {} });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const q = await queryable();
    expect(await q.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id))).toEqual([]);
    expect(await run(workspace.id)).toEqual({ attempted: 0, succeeded: 0 });
    expect(await deliveriesOf(endpoint.id)).toEqual([]);
    expect(receiver.received).toHaveLength(0);
  });

  it("fans out by event type and agent filters, once per (endpoint, event)", async () => {
    const { workspace, actor, agent, endpoint: all } = await setup();
    const other = await newAgent(workspace.id);
    const holds = await createEndpoint(actor, { url: `${receiver.url}/holds`, event_types: ["hold.created"] });
    const mine = await createEndpoint(actor, { url: `${receiver.url}/mine`, agent_ids: [agent.id] });
    const off = await createEndpoint(actor, { url: `${receiver.url}/off` });
    await transaction((tx) => tx.update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.id, off.id)));

    // Deliveries are written by the statement that writes the event.
    await emit(actor, "hold.created", other.id);
    await emit(actor, "approval.requested", agent.id);
    await emit(actor, "email.received", null);

    expect((await deliveriesOf(all.id)).map((d) => d.eventType).sort()).toEqual(["approval.requested", "email.received", "hold.created"]);
    expect((await deliveriesOf(holds.id)).map((d) => d.eventType)).toEqual(["hold.created"]);
    expect((await deliveriesOf(mine.id)).map((d) => d.eventType)).toEqual(["approval.requested"]);
    expect(await deliveriesOf(off.id)).toEqual([]);
  });

  it("fans out an event left without deliveries (written before fan-out moved into the emitting statement) once", async () => {
    const { workspace, endpoint } = await setup();
    const q = await queryable();
    const [event] = await q
      .insert(webhookEvents)
      .values({ id: newId("webhookEvent"), workspaceId: workspace.id, type: "hold.created", data: {}, fannedOutAt: null })
      .returning();
    const [a, b] = await Promise.all([fanOutEvent(event!.id), fanOutEvent(event!.id)]);
    expect(a.deliveries + b.deliveries).toBe(1);
    expect(await fanOutEvent(event!.id)).toEqual({ deliveries: 0 });
    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ eventId: event!.id, status: "pending" });
    expect(d!.id).toMatch(/^whd_[0-9a-z]{26}$/);
    expect(await run(workspace.id)).toEqual({ attempted: 1, succeeded: 1 });
  });

  it("retries on the schedule with the same webhook-id, then gives up after 8 attempts", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = () => ({ status: 500 });
    const event = await emit(actor, "email.sent");
    let now = new Date();
    const expected = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6];
    for (let attempt = 1; attempt <= 8; attempt++) {
      expect(await run(workspace.id, { now })).toEqual({ attempted: 1, succeeded: 0 });
      const [d] = await deliveriesOf(endpoint.id);
      expect(d!.attempts).toBe(attempt);
      expect(d!.lastResponseStatus).toBe(500);
      if (attempt === 8) {
        expect(d).toMatchObject({ status: "failed", nextAttemptAt: null });
        break;
      }
      expect(d!.status).toBe("pending");
      // The wait counts from when the attempt's answer arrived: a few ms after `now`.
      expect(d!.nextAttemptAt!.getTime() - now.getTime()).toBeGreaterThanOrEqual(expected[attempt - 1]!);
      expect(d!.nextAttemptAt!.getTime() - now.getTime()).toBeLessThan(expected[attempt - 1]! + 5_000);
      // Not due a moment before its time.
      expect(await run(workspace.id, { now: new Date(d!.nextAttemptAt!.getTime() - 1000) })).toEqual({ attempted: 0, succeeded: 0 });
      now = d!.nextAttemptAt!;
    }
    expect(receiver.received).toHaveLength(8);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([event.id]));
    expect((await endpointRow(endpoint.id)).consecutiveExhausted).toBe(1);
  });

  it("disables the endpoint on 410 Gone, audits it and notifies the owners", async () => {
    const { workspace, actor, endpoint } = await setup();
    await transaction((tx) => tx.insert(members).values({ id: newId("member"), workspaceId: workspace.id, email: "owner@example.com", role: "owner" }));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    receiver.reply = () => ({ status: 410 });
    await emit(actor, "email.sent");
    await run(workspace.id);
    const ep = await endpointRow(endpoint.id);
    expect(ep).toMatchObject({ enabled: false, disabledReason: "the endpoint answered 410 Gone" });
    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "failed", lastResponseStatus: 410 });
    const q = await queryable();
    const audit = await q.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "webhook_endpoint.disabled")));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: "system", resourceId: endpoint.id });
    expect(warn.mock.calls.flat().join(" ")).toContain("owner@example.com");
    warn.mockRestore();
    const mail = await q.select().from(outboundMail).where(eq(outboundMail.workspaceId, workspace.id));
    expect(mail).toEqual([expect.objectContaining({ to: ["owner@example.com"], status: "captured", kind: "webhook_endpoint_disabled" })]);
    expect(mail[0]!.text).toContain(endpoint.id);

    // A disabled endpoint gets no new deliveries.
    await emit(actor, "email.sent");
    await run(workspace.id);
    expect(receiver.received).toHaveLength(1);
  });

  it("honours Retry-After on 429 and 503", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = () => ({ status: 429, headers: { "retry-after": "120" } });
    await emit(actor, "email.sent");
    const now = new Date();
    await run(workspace.id, { now });
    let [d] = await deliveriesOf(endpoint.id);
    expect(d!.nextAttemptAt!.getTime() - now.getTime()).toBeGreaterThanOrEqual(120_000);
    expect(d!.nextAttemptAt!.getTime() - now.getTime()).toBeLessThan(125_000);
    receiver.reply = () => ({ status: 503, headers: { "retry-after": "600" } });
    await run(workspace.id, { now: d!.nextAttemptAt! });
    [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "pending", attempts: 2, lastResponseStatus: 503 });
  });

  it("counts Retry-After from the moment the answer arrives, not from the start of the attempt (issue #37)", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = () => ({ status: 429, headers: { "retry-after": "2" }, delayMs: 1500 });
    await emit(actor, "email.sent");
    const now = new Date();
    await run(workspace.id, { now });
    const [d] = await deliveriesOf(endpoint.id);
    expect(d!.nextAttemptAt!.getTime() - now.getTime()).toBeGreaterThanOrEqual(3500);
    // The same for a 503 whose Retry-After is an HTTP date: no earlier than that date.
    const at = new Date(Math.ceil((Date.now() + 4000) / 1000) * 1000);
    receiver.reply = () => ({ status: 503, headers: { "retry-after": at.toUTCString() }, delayMs: 1500 });
    await run(workspace.id, { now: d!.nextAttemptAt! });
    const [again] = await deliveriesOf(endpoint.id);
    expect(again).toMatchObject({ attempts: 2, lastResponseStatus: 503 });
    expect(again!.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(at.getTime());
  });

  it("does not follow redirects: a 3xx is a failed attempt", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = (r) => (r.path === "/hook" ? { status: 307, headers: { location: `${receiver.url}/elsewhere` } } : { status: 200 });
    await emit(actor, "email.sent");
    await run(workspace.id);
    expect(receiver.received.map((r) => r.path)).toEqual(["/hook"]);
    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "pending", lastResponseStatus: 307, lastError: "redirects are not followed" });
  });

  it("gives up on an endpoint that answers too slowly", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = () => ({ status: 200, delayMs: 2000 });
    await emit(actor, "email.sent");
    await run(workspace.id, { timeoutMs: 200 });
    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: null, lastError: "timed out after 200 ms" });
    expect(d!.lastLatencyMs).toBeGreaterThanOrEqual(190);
  });

  it("never sends one attempt twice when runners compete", async () => {
    const { workspace, actor, endpoint } = await setup();
    for (let i = 0; i < 12; i++) await emit(actor, "email.received", null, { i });
    const results = await Promise.all([1, 2, 3].map(() => deliverDueWebhooks({ workspaceId: workspace.id, limit: 5 })));
    const more = await deliverDueWebhooks({ workspaceId: workspace.id, limit: 20 });
    expect(results.reduce((n, r) => n + r.attempted, more.attempted)).toBe(12);
    expect(receiver.received).toHaveLength(12);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(12);
    expect((await deliveriesOf(endpoint.id)).every((d) => d.status === "succeeded" && d.attempts === 1)).toBe(true);
  });

  it("refuses destinations the SSRF guard forbids, before connecting", async () => {
    const { workspace, actor, endpoint } = await setup();
    await emit(actor, "email.sent");
    // The receiver's loopback address left off the allowlist: refused, nothing sent.
    await run(workspace.id, { allowlist: parseAllowlist("localhost") });
    let [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: null });
    expect(d!.lastError).toMatch(/^refused: plain http/);

    // A public-looking name whose DNS answer is private: refused after resolution.
    const named = await createEndpoint(actor, { url: "https://hooks.example.test/x" });
    await emit(actor, "email.bounced");
    const addresses = ["10.0.0.8", "169.254.169.254", "100.64.1.1", "fd00::8", "::ffff:127.0.0.1"];
    for (const [i, address] of addresses.entries()) {
      await run(workspace.id, {
        now: new Date(Date.now() + (i + 1) * 11 * 3_600_000),
        allowlist: parseAllowlist(""),
        resolver: async () => [{ address, family: address.includes(":") ? 6 : 4 }],
      });
      [d] = await deliveriesOf(named.id);
      expect(d!.lastError).toContain(`resolves to ${address}`);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it("connects only to the address the guard checked, keeping the URL's host name", async () => {
    const { workspace, actor } = await setup();
    const port = new URL(receiver.url).port;
    const named = await createEndpoint(actor, { url: `https://rebind.example.test:${port}/pinned` });
    await transaction((tx) => tx.update(webhookEndpoints).set({ url: `http://rebind.example.test:${port}/pinned` }).where(eq(webhookEndpoints.id, named.id)));
    await emit(actor, "email.sent");
    let lookups = 0;
    // The stub answers 127.0.0.1 once; a second resolution (a rebinding DNS answer) would be refused.
    const resolver = async () => (lookups++ === 0 ? [{ address: "127.0.0.1", family: 4 as const }] : [{ address: "10.0.0.1", family: 4 as const }]);
    await run(workspace.id, { allowlist: parseAllowlist("rebind.example.test"), resolver });
    expect(lookups).toBe(1);
    const got = receiver.received.find((r) => r.path === "/pinned");
    expect(got?.headers.host).toBe(`rebind.example.test:${port}`);
    expect((await deliveriesOf(named.id))[0]).toMatchObject({ status: "succeeded" });
  });

  it("makes the attempt again when a dead runner's lease runs out (at least once)", async () => {
    const { workspace, actor, endpoint } = await setup();
    await emit(actor, "email.sent");
    const now = new Date();
    // Another runner claimed it and died mid-attempt.
    await transaction((tx) =>
      tx
        .update(webhookDeliveries)
        .set({ attempts: 1, leaseToken: "dead-runner", leasedUntil: new Date(now.getTime() + 45_000) })
        .where(eq(webhookDeliveries.endpointId, endpoint.id)),
    );
    expect(await run(workspace.id, { now })).toEqual({ attempted: 0, succeeded: 0 });
    expect(await run(workspace.id, { now: new Date(now.getTime() + 46_000) })).toEqual({ attempted: 1, succeeded: 1 });
    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "succeeded", attempts: 2, leaseToken: null });
    expect(receiver.received).toHaveLength(1);
  });

  it("signs with both secrets for 24 hours after a rotation", async () => {
    const { workspace, actor, endpoint } = await setup();
    const rotated = await rotateSecret(actor, endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await emit(actor, "email.sent");
    await run(workspace.id);
    const { headers, body } = receiver.received[0]!;
    expect(String(headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(new Webhook(endpoint.secret).verify(body, headers as Record<string, string>)).toMatchObject({ type: "email.sent" });
    expect(new Webhook(rotated.secret).verify(body, headers as Record<string, string>)).toMatchObject({ type: "email.sent" });

    // After 24 hours only the new secret signs.
    await emit(actor, "email.sent");
    await run(workspace.id, { now: new Date(Date.now() + 86_400_000 + 60_000) });
    const last = receiver.received[1]!;
    expect(String(last.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(() => new Webhook(endpoint.secret).verify(last.body, last.headers as Record<string, string>)).toThrow();
    expect(new Webhook(rotated.secret).verify(last.body, last.headers as Record<string, string>)).toBeTruthy();
  });

  it("disables an endpoint whose attempts have all failed for 5 days", async () => {
    const { workspace, actor, endpoint } = await setup();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    receiver.reply = () => ({ status: 500 });
    await emit(actor, "email.sent");
    const t0 = new Date();
    await run(workspace.id, { now: t0 });
    expect((await endpointRow(endpoint.id)).enabled).toBe(true);
    await run(workspace.id, { now: new Date(t0.getTime() + 5 * 86_400_000) });
    expect(await endpointRow(endpoint.id)).toMatchObject({ enabled: false, disabledReason: "every delivery attempt failed for 5 days" });
    warn.mockRestore();
  });

  it("disables an endpoint after 5 deliveries in a row used up every attempt", async () => {
    const { workspace, actor, endpoint } = await setup();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    receiver.reply = () => ({ status: 500 });
    await transaction((tx) => tx.update(webhookEndpoints).set({ consecutiveExhausted: 4 }).where(eq(webhookEndpoints.id, endpoint.id)));
    await emit(actor, "email.sent");
    // The delivery's last attempt.
    await transaction((tx) => tx.update(webhookDeliveries).set({ attempts: 7 }).where(eq(webhookDeliveries.endpointId, endpoint.id)));
    await run(workspace.id);
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: "failed", attempts: 8 });
    expect(await endpointRow(endpoint.id)).toMatchObject({ enabled: false, consecutiveExhausted: 5, disabledReason: "5 deliveries in a row failed every attempt" });
    warn.mockRestore();
  });

  it("retries a delivery by hand after its attempts ran out, with the same webhook-id", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = () => ({ status: 500 });
    const event = await emit(actor, "email.sent");
    await run(workspace.id);
    await transaction((tx) => tx.update(webhookDeliveries).set({ status: "failed", attempts: 8, nextAttemptAt: null }).where(eq(webhookDeliveries.endpointId, endpoint.id)));
    receiver.reply = () => ({ status: 204 });
    const [d] = await deliveriesOf(endpoint.id);
    const retried = await retryDelivery(actor, d!.id);
    expect(retried.status).toBe("pending");
    await run(workspace.id);
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: "succeeded", attempts: 9, lastResponseStatus: 204 });
    // Every request, the failed first attempt's and the retry's, carries the event's id (the
    // first may not reach the receiver when a run elsewhere on the shared database claimed it).
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(ids.at(-1)).toBe(event.id);
    expect(new Set(ids)).toEqual(new Set([event.id]));
  });

  it("purges finished deliveries and delivered events after 30 days, keeping what is still pending", async () => {
    const { workspace, actor, endpoint } = await setup();
    receiver.reply = (r) => ({ status: JSON.parse(r.body).data.fail ? 500 : 200 });
    await emit(actor, "email.sent", null, { fail: false });
    await emit(actor, "email.sent", null, { fail: true });
    await run(workspace.id);
    expect((await deliveriesOf(endpoint.id)).map((d) => d.status).sort()).toEqual(["pending", "succeeded"]);
    expect(await purgeWebhookHistory({ workspaceId: workspace.id })).toEqual({ deliveries: 0, events: 0 });
    const later = new Date(Date.now() + 31 * 86_400_000);
    expect(await purgeWebhookHistory({ workspaceId: workspace.id, now: later })).toEqual({ deliveries: 1, events: 1 });
    expect((await deliveriesOf(endpoint.id)).map((d) => d.status)).toEqual(["pending"]);
    const q = await queryable();
    expect(await q.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id))).toHaveLength(1);
  });
});
