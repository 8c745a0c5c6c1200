import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { queryable, transaction } from "../../../db/transaction";
import { auditEntries, webhookDeliveries } from "../../../db/schema";
import { emitEvent } from "../../platform/events/emit-event";

// No delivery runs in this file: endpoint URLs are never contacted.
const { api } = serveApiForTests();
const URL_A = "https://hooks.example.test/a";

async function workspaceWithKey(scopes?: ("webhooks" | "calendar")[]) {
  const { workspace, actor } = await newWorkspace();
  const { key } = await newKey(workspace.id, scopes ? { scopes } : {});
  return { workspace, actor, key };
}

describe("webhook endpoints API", () => {
  it("creates (secret shown once), lists, reads, updates, rotates and deletes, auditing each change", async () => {
    const { workspace, key } = await workspaceWithKey();
    const agent = await newAgent(workspace.id);
    const created = await api("/api/v1/webhook-endpoints", {
      key,
      body: { url: URL_A, description: "ops", event_types: ["hold.created", "hold.created", "email.sent"], agent_ids: [agent.id] },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      object: "webhook_endpoint",
      url: URL_A,
      event_types: ["email.sent", "hold.created"],
      agent_ids: [agent.id],
      enabled: true,
    });
    expect(created.json.id).toMatch(/^whe_/);
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.json.id;

    const got = await api(`/api/v1/webhook-endpoints/${id}`, { key });
    expect(got.status).toBe(200);
    expect(got.json.secret).toBeUndefined();
    const listed = await api("/api/v1/webhook-endpoints", { key });
    expect(listed.json).toMatchObject({ object: "list", has_more: false, data: [{ id }] });
    expect(listed.json.data[0].secret).toBeUndefined();

    const patched = await api(`/api/v1/webhook-endpoints/${id}`, { key, method: "PATCH", body: { event_types: [], enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ event_types: null, enabled: false, disabled_reason: "disabled by request" });
    const reenabled = await api(`/api/v1/webhook-endpoints/${id}`, { key, method: "PATCH", body: { enabled: true } });
    expect(reenabled.json).toMatchObject({ enabled: true, disabled_reason: null });

    const rotated = await api(`/api/v1/webhook-endpoints/${id}/rotate-secret`, { key, method: "POST" });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    expect(Date.parse(rotated.json.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    const deleted = await api(`/api/v1/webhook-endpoints/${id}`, { key, method: "DELETE" });
    expect(deleted.json).toEqual({ id, object: "webhook_endpoint", deleted: true });
    expect((await api(`/api/v1/webhook-endpoints/${id}`, { key })).status).toBe(404);

    const q = await queryable();
    const actions = (await q.select().from(auditEntries).where(eq(auditEntries.workspaceId, workspace.id)).orderBy(auditEntries.id)).map((e) => e.action);
    expect(actions.filter((a) => a.startsWith("webhook_endpoint."))).toEqual([
      "webhook_endpoint.created",
      "webhook_endpoint.updated",
      "webhook_endpoint.updated",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.deleted",
    ]);
  });

  it("refuses bad input with a validation problem listing each field, and changes nothing", async () => {
    const { key } = await workspaceWithKey();
    const cases: [unknown, string[]][] = [
      [{}, ["url"]],
      [{ url: "not a url" }, ["url"]],
      [{ url: "ftp://x.example/" }, ["url"]],
      [{ url: "https://user:pw@x.example/" }, ["url"]],
      [{ url: "http://hooks.example.test/" }, ["url"]], // plain http to a host not allowlisted
      [{ url: "https://127.0.0.1/" }, ["url"]],
      [{ url: "https://[::1]/" }, ["url"]],
      [{ url: "https://169.254.169.254/latest" }, ["url"]],
      [{ url: "https://localhost/" }, ["url"]],
      [{ url: URL_A, event_types: ["hold.exploded"] }, ["event_types.0"]],
      [{ url: URL_A, agent_ids: ["agent_nope"] }, ["agent_ids.0"]],
    ];
    for (const [body, fields] of cases) {
      const res = await api("/api/v1/webhook-endpoints", { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
    expect((await api("/api/v1/webhook-endpoints", { key, rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await api("/api/v1/webhook-endpoints", { key })).json.data).toEqual([]);
  });

  it("hides other workspaces' endpoints and deliveries (404, never 403)", async () => {
    const a = await workspaceWithKey();
    const b = await workspaceWithKey();
    const ep = await api("/api/v1/webhook-endpoints", { key: a.key, body: { url: URL_A } });
    await transaction((tx) => emitEvent(tx, a.actor, { type: "email.sent", data: {} }));
    const deliveries = await api(`/api/v1/webhook-endpoints/${ep.json.id}/deliveries`, { key: a.key });
    expect(deliveries.json.data).toHaveLength(1);
    const whd = deliveries.json.data[0].id;

    for (const [path, method] of [
      [`/api/v1/webhook-endpoints/${ep.json.id}`, "GET"],
      [`/api/v1/webhook-endpoints/${ep.json.id}`, "DELETE"],
      [`/api/v1/webhook-endpoints/${ep.json.id}/rotate-secret`, "POST"],
      [`/api/v1/webhook-endpoints/${ep.json.id}/deliveries`, "GET"],
      [`/api/v1/webhook-deliveries/${whd}/retry`, "POST"],
      ["/api/v1/webhook-endpoints/whe_nope", "GET"],
      ["/api/v1/webhook-deliveries/not-an-id/retry", "POST"],
    ] as const) {
      const res = await api(path, { key: b.key, method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.code).toBe("not_found");
    }
    const patch = await api(`/api/v1/webhook-endpoints/${ep.json.id}`, { key: b.key, method: "PATCH", body: { description: "x" } });
    expect(patch.status).toBe(404);
    expect((await api("/api/v1/webhook-endpoints", { key: b.key })).json.data).toEqual([]);
    expect((await api(`/api/v1/webhook-endpoints/${ep.json.id}`, { key: a.key })).json.description).toBeNull();
  });

  it("needs the webhooks scope", async () => {
    const { key } = await workspaceWithKey(["calendar"]);
    const res = await api("/api/v1/webhook-endpoints", { key, body: { url: URL_A } });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: "insufficient_scope", required_scope: "webhooks" });
    expect((await api("/api/v1/webhook-endpoints", { key })).status).toBe(403);
  });

  it("lets an agent-bound key manage only endpoints filtered to its own agent", async () => {
    const { workspace, key: wideKey } = await workspaceWithKey();
    const agent = await newAgent(workspace.id);
    const other = await newAgent(workspace.id);
    const { key } = await newKey(workspace.id, { agent_id: agent.id });

    const own = await api("/api/v1/webhook-endpoints", { key, body: { url: URL_A } });
    expect(own.status).toBe(201);
    expect(own.json.agent_ids).toEqual([agent.id]);
    expect((await api("/api/v1/webhook-endpoints", { key, body: { url: URL_A, agent_ids: [other.id] } })).status).toBe(404);
    expect((await api("/api/v1/webhook-endpoints", { key, body: { url: URL_A, agent_ids: null } })).status).toBe(403);
    const widen = await api(`/api/v1/webhook-endpoints/${own.json.id}`, { key, method: "PATCH", body: { agent_ids: [] } });
    expect(widen.status).toBe(403);

    const workspaceWide = await api("/api/v1/webhook-endpoints", { key: wideKey, body: { url: URL_A } });
    expect((await api(`/api/v1/webhook-endpoints/${workspaceWide.json.id}`, { key })).status).toBe(404);
    expect((await api("/api/v1/webhook-endpoints", { key })).json.data.map((e: { id: string }) => e.id)).toEqual([own.json.id]);
    expect((await api("/api/v1/webhook-endpoints", { key: wideKey })).json.data).toHaveLength(2);
  });

  it("shows the delivery log and retries a delivery by hand", async () => {
    const { workspace, actor, key } = await workspaceWithKey();
    const ep = await api("/api/v1/webhook-endpoints", { key, body: { url: URL_A } });
    await transaction((tx) => emitEvent(tx, actor, { type: "approval.requested", data: {} }));
    const q = await queryable();
    await transaction((tx) =>
      tx
        .update(webhookDeliveries)
        .set({ status: "failed", attempts: 8, nextAttemptAt: null, lastResponseStatus: 500, lastLatencyMs: 12, completedAt: new Date() })
        .where(eq(webhookDeliveries.endpointId, ep.json.id)),
    );
    const log = await api(`/api/v1/webhook-endpoints/${ep.json.id}/deliveries?status=failed`, { key });
    expect(log.json.data).toEqual([
      expect.objectContaining({ object: "webhook_delivery", event_type: "approval.requested", status: "failed", attempts: 8, response_status: 500, latency_ms: 12, next_attempt_at: null }),
    ]);
    const retried = await api(`/api/v1/webhook-deliveries/${log.json.data[0].id}/retry`, { key, method: "POST" });
    expect(retried.status).toBe(202);
    expect(retried.json).toMatchObject({ status: "pending", completed_at: null });
    expect(Date.parse(retried.json.next_attempt_at)).toBeLessThanOrEqual(Date.now());
    expect((await api(`/api/v1/webhook-endpoints/${ep.json.id}/deliveries?status=failed`, { key })).json.data).toEqual([]);
    const audit = await q.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "webhook_delivery.retried")));
    expect(audit).toHaveLength(1);

    await api(`/api/v1/webhook-endpoints/${ep.json.id}`, { key, method: "PATCH", body: { enabled: false } });
    const refused = await api(`/api/v1/webhook-deliveries/${log.json.data[0].id}/retry`, { key, method: "POST" });
    expect(refused.status).toBe(409);
  });
});
