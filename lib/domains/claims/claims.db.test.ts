// @suite pooled
import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { jsonValue } from "../../../db/row-json";
import { auditEntries, messageClaims, webhookEvents } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { newKey } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { composeMime } from "../../../test/helpers/mime";
import { serializeClaim } from "./serialize";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function receive(address: string, subject: string): Promise<string> {
  const raw = await composeMime({ from: "Customer <customer@example.com>", to: address, subject, text: `Hello about ${subject}`, messageId: `<${subject.replace(/\W/g, "")}-${Date.now()}-${Math.random()}@example.com>` });
  const res = await api(`/api/inbound/raw`, { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status, res.text).toBeLessThan(300);
  const id = res.json?.deliveries?.[0]?.message_id;
  expect(typeof id).toBe("string");
  return id as string;
}

/** An inbox with a received message and two more keys (workers) of the inbox's agent. */
async function setup() {
  const ctx = await newAgentInbox(api);
  const { key: worker2 } = await newKey(ctx.workspace.id, { agent_id: ctx.agent.id, scopes: ["mail"] });
  const { key: wide } = await newKey(ctx.workspace.id);
  const messageId = await receive(ctx.inbox.address, "Refund request");
  return { ...ctx, worker1: ctx.key, worker2, wide, messageId };
}
const claim = (key: string, id: string, ttl = 60) => api(`/api/v1/messages/${id}/claim`, { key, body: { ttl_seconds: ttl } });
const end = (key: string, id: string, action: "release" | "complete", claimId?: string) => api(`/api/v1/messages/${id}/${action}`, { key, body: claimId ? { claim_id: claimId } : {} });

describe("message claims", () => {
  it("one worker claims; the other gets 409 message_claimed; release frees it; complete ends it for good", async () => {
    const { workspace, agent, inbox, worker1, worker2, wide, messageId } = await setup();
    const first = await claim(worker1, messageId);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ object: "message_claim", message_id: messageId, inbox_id: inbox.id, agent_id: agent.id, status: "claimed" });
    const other = await claim(worker2, messageId);
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: "message_claimed", claim: { status: "claimed" } });
    expect(other.text).not.toContain("agent_id");
    expect((await end(worker2, messageId, "release", first.json.id)).json.code).toBe("message_claimed");
    // Claiming again with the claim's id renews it; without it, even with the same key, it is another worker's claim.
    const renewed = await api(`/api/v1/messages/${messageId}/claim`, { key: worker1, body: { ttl_seconds: 120, claim_id: first.json.id } });
    expect(renewed.json).toMatchObject({ id: first.json.id, ttl_seconds: 120 });
    expect((await claim(worker1, messageId)).json.code).toBe("message_claimed");

    const listed = (q: string) => api(`/api/v1/inboxes/${inbox.id}/messages${q}`, { key: wide }).then((r) => r.json.data.map((m: { id: string }) => m.id));
    expect(await listed("?claimable=true")).toEqual([]);
    expect(await listed("")).toEqual([messageId]);

    expect((await end(worker1, messageId, "release", first.json.id)).json.status).toBe("released");
    expect(await listed("?claimable=true")).toEqual([messageId]);
    const second = await claim(worker2, messageId);
    expect(second.status).toBe(200);
    expect(second.json.id).not.toBe(first.json.id);
    expect((await end(worker1, messageId, "complete", second.json.id)).json.code).toBe("message_claimed");
    const done = await end(worker2, messageId, "complete", second.json.id);
    expect(done.json).toMatchObject({ status: "completed", ended_at: expect.any(String) });
    expect((await end(worker2, messageId, "complete", second.json.id)).status).toBe(200);
    expect((await claim(worker1, messageId)).json.code).toBe("message_completed");
    expect(await listed("?claimable=true")).toEqual([]);

    const db = await getDb();
    // In the order they were written (a table's physical order is not one).
    const types = (await db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspace.id)).orderBy(webhookEvents.seq)).map((e) => e.type).filter((t) => t.startsWith("message."));
    expect(types).toEqual(["message.claimed", "message.released", "message.claimed", "message.completed"]);
    const actions = (await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.resourceId, messageId)))).map((e) => e.action);
    expect(actions.filter((a) => a.startsWith("message.")).sort()).toEqual(["message.claim_completed", "message.claim_released", "message.claim_renewed", "message.claimed", "message.claimed"]);
  });

  it("workers sharing one key are told apart by the claim: one wins, the other cannot renew, release or complete it by its id; a lapsed claim's id renews nothing", async () => {
    const { inbox, worker1: shared, messageId } = await setup();
    const race = await Promise.all(["a", "b", "c", "d"].map((worker) => api(`/api/v1/messages/${messageId}/claim`, { key: shared, body: { ttl_seconds: 60, worker } })));
    const won = race.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(race.filter((r) => r.status === 409 && r.json.code === "message_claimed")).toHaveLength(3);
    const mine = won[0]!.json;
    expect(mine).toMatchObject({ worker: expect.stringMatching(/^[abcd]$/), status: "claimed", inbox_id: inbox.id });
    expect((await api(`/api/v1/messages/${messageId}/claim`, { key: shared, body: { ttl_seconds: 60, claim_id: "mclm_00000000000000000000000000" } })).json.code).toBe("message_claimed");
    expect((await end(shared, messageId, "complete", "mclm_00000000000000000000000000")).json.code).toBe("message_claimed");
    expect((await end(shared, messageId, "release", "mclm_00000000000000000000000000")).json.code).toBe("message_claimed");
    const released = await end(shared, messageId, "release", mine.id);
    expect(released.json).toMatchObject({ id: mine.id, status: "released" });
    // The released claim's id renews nothing and ends nothing.
    expect((await api(`/api/v1/messages/${messageId}/claim`, { key: shared, body: { ttl_seconds: 60, claim_id: mine.id } })).json.code).toBe("claim_not_active");
    expect((await end(shared, messageId, "complete", mine.id)).json.code).toBe("claim_not_active");
    const next = await claim(shared, messageId);
    expect(next.json.worker).toBeNull();
    expect((await end(shared, messageId, "complete", next.json.id)).json).toMatchObject({ id: next.json.id, status: "completed" });
    expect((await end(shared, messageId, "complete", next.json.id)).json).toMatchObject({ id: next.json.id, status: "completed" });
    expect((await end(shared, messageId, "complete", mine.id)).json.code).toBe("message_completed");
    expect((await api(`/api/v1/messages/${messageId}/claim`, { key: shared, body: { ttl_seconds: 60, worker: "" } })).status).toBe(400);
  });

  it("ending a claim names it: a worker sharing the key cannot complete or release another's claim without its id (#48)", async () => {
    const { worker1: shared, worker2: otherKey, messageId } = await setup();
    const a = await api(`/api/v1/messages/${messageId}/claim`, { key: shared, body: { ttl_seconds: 60, worker: "worker-a" } });
    expect(a.status).toBe(200);
    expect((await api(`/api/v1/messages/${messageId}/claim`, { key: shared, body: { ttl_seconds: 60, worker: "worker-b" } })).json.code).toBe("message_claimed");
    for (const action of ["complete", "release"] as const) {
      for (const key of [shared, otherKey]) {
        const r = await end(key, messageId, action);
        expect(r.status).toBe(409);
        // Named by its worker, status and expiry: never by its id, which is what proves the worker.
        expect(r.json).toMatchObject({ code: "claim_id_required", claim: { status: "claimed", worker: "worker-a", expires_at: a.json.expires_at } });
        expect(r.json.detail).toContain('worker "worker-a"');
        expect(r.text).not.toContain(a.json.id);
      }
    }
    // A's claim is untouched: still live, and A completes it by its id.
    const db = await getDb();
    expect((await db.select().from(messageClaims).where(eq(messageClaims.id, a.json.id)))[0]!.status).toBe("claimed");
    expect((await end(shared, messageId, "complete", a.json.id)).json).toMatchObject({ id: a.json.id, status: "completed" });
    // On a message nobody claimed, the answer is the same code.
    const { worker1, messageId: free } = await setup();
    expect((await end(worker1, free, "complete")).json).toMatchObject({ code: "claim_id_required" });
  });

  it("an expired claim can be taken again (and its holder can no longer complete)", async () => {
    const { inbox, worker1, worker2, wide, messageId } = await setup();
    const lapsed = await claim(worker1, messageId, 1);
    expect(lapsed.status).toBe(200);
    await sleep(1100);
    expect((await api(`/api/v1/inboxes/${inbox.id}/messages?claimable=true`, { key: wide })).json.data).toHaveLength(1);
    expect((await end(worker1, messageId, "complete", lapsed.json.id)).json.code).toBe("claim_not_active");
    const retaken = await claim(worker2, messageId);
    expect(retaken.status).toBe(200);
    const db = await getDb();
    const rows = await db.select().from(messageClaims).where(eq(messageClaims.messageId, messageId));
    expect(rows.map((r) => r.status).sort()).toEqual(["claimed", "expired"]);
  });

  it("another agent's key, another workspace and bad input are refused without a change", async () => {
    const { messageId, worker1 } = await setup();
    const stranger = await newAgentInbox(api);
    expect((await claim(stranger.key, messageId)).status).toBe(404);
    for (const ttl of [0, 86_401, 1.5]) expect((await claim(worker1, messageId, ttl)).status).toBe(400);
    expect((await api(`/api/v1/messages/${messageId}/claim`, { key: worker1, body: {} })).status).toBe(400);
    expect((await claim(worker1, "msg_doesnotexist0000000000000")).status).toBe(404);
    const db = await getDb();
    expect(await db.select().from(messageClaims).where(eq(messageClaims.messageId, messageId))).toEqual([]);
  });

  it("the database's claim JSON (webhooks) equals the API's", async () => {
    const { worker1, messageId } = await setup();
    await claim(worker1, messageId, 1);
    const db = await getDb();
    for (const moment of ["live", "expired"]) {
      if (moment === "expired") await sleep(1100);
      const [row] = await db.select().from(messageClaims).where(eq(messageClaims.messageId, messageId));
      const { rows } = await db.execute<{ j: unknown }>(sql`select agentdraft_claim_json(c) as j from message_claims c where id = ${row!.id}`);
      expect(jsonValue(rows[0]!.j)).toEqual(serializeClaim(row!));
    }
  });

  it("50 workers claiming one message at once: exactly one wins", async () => {
    const { workspace, agent, messageId } = await setup();
    const keys = await Promise.all(Array.from({ length: 50 }, () => newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] }).then((k) => k.key)));
    const results = await Promise.all(keys.map((key) => claim(key, messageId)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.json.code === "message_claimed")).toHaveLength(49);
    const db = await getDb();
    expect(await db.select().from(messageClaims).where(eq(messageClaims.messageId, messageId))).toHaveLength(1);
  });
});
