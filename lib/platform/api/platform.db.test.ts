// @suite pooled
import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { revokeKey } from "../../domains/api-keys/revoke-key";
import { operatorActor } from "../actor";

const { api, url } = serveApiForTests();

function expectProblem(res: { status: number; headers: Headers; json: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.json).toMatchObject({ status, code, type: `/docs/errors#${code}`, title: expect.any(String), detail: expect.any(String) });
  expect(res.json.request_id).toBe(res.headers.get("x-request-id"));
  expect(JSON.stringify(res.json)).not.toMatch(/\s+at\s.+\(.*:\d+:\d+\)/); // no stack trace
}

describe("authentication", () => {
  it.each([
    ["no header", undefined, /Authorization: Bearer/],
    ["not bearer", "Basic dXNlcjpwYXNz", /must be `Bearer/],
    ["not a key", "Bearer sk_live_123", /not an AgentDraft API key/],
    ["unknown key", `Bearer ad_live_${"A".repeat(43)}`, /not valid/],
  ])("refuses %s with 401 and a WWW-Authenticate challenge", async (_name, authorization, detail) => {
    const res = await api("/api/v1/me", { headers: authorization ? { authorization } : {} });
    expectProblem(res, 401, "unauthorized");
    expect(res.json.detail).toMatch(detail);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("refuses a revoked key", async () => {
    const { workspace } = await newWorkspace();
    const { row, key } = await newKey(workspace.id);
    expect((await api("/api/v1/me", { key })).status).toBe(200);
    await revokeKey(operatorActor(workspace.id), row.id);
    const res = await api("/api/v1/me", { key });
    expectProblem(res, 401, "unauthorized");
    expect(res.json.detail).toMatch(/revoked/);
  });

  it("GET /v1/me describes the calling key, and records last use", async () => {
    const { workspace } = await newWorkspace("Me Inc");
    const agent = await newAgent(workspace.id, "me-agent");
    const { row, key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["calendar"] });
    const res = await api("/api/v1/me", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.json).toEqual({
      object: "me",
      workspace: { id: workspace.id, name: "Me Inc" },
      agent: expect.objectContaining({ id: agent.id, name: "me-agent" }),
      api_key: { id: row.id, mode: "live" },
      scopes: ["calendar"],
      taint: null,
    });
    const { getDb } = await import("../../../db/client");
    const { apiKeys } = await import("../../../db/schema");
    const { eq } = await import("drizzle-orm");
    const [after] = await (await getDb()).select().from(apiKeys).where(eq(apiKeys.id, row.id));
    expect(after!.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe("scopes and agent-bound keys", () => {
  it("refuses a key without the operation's scope with 403 insufficient_scope", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id, { scopes: ["mail"] });
    const res = await api("/api/v1/audit", { key });
    expectProblem(res, 403, "insufficient_scope");
    expect(res.json.required_scope).toBe("audit");
  });

  it("an agent-bound key sees only its own agent and cannot create agents", async () => {
    const { workspace } = await newWorkspace();
    const mine = await newAgent(workspace.id, "mine");
    const other = await newAgent(workspace.id, "other");
    const { key } = await newKey(workspace.id, { agent_id: mine.id });

    const listed = await api("/api/v1/agents", { key });
    expect(listed.json.data.map((a: { id: string }) => a.id)).toEqual([mine.id]);
    expect((await api(`/api/v1/agents/${mine.id}`, { key })).status).toBe(200);
    expectProblem(await api(`/api/v1/agents/${other.id}`, { key }), 404, "not_found");
    expectProblem(await api("/api/v1/agents", { key, body: { name: "sneaky" } }), 403, "forbidden");
  });
});

describe("tenancy", () => {
  it("a second workspace cannot read or act on the first's data: its ids are 404, never 403", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const agentA = await newAgent(a.workspace.id, "a-agent");
    const { key: keyB } = await newKey(b.workspace.id);

    expectProblem(await api(`/api/v1/agents/${agentA.id}`, { key: keyB }), 404, "not_found");
    const listed = await api("/api/v1/agents", { key: keyB });
    expect(listed.json.data).toEqual([]);
    const audit = await api(`/api/v1/audit?resource_id=${agentA.id}`, { key: keyB });
    expect(audit.json.data).toEqual([]);
    // A key of B cannot be bound to A's agent either.
    await expect(newKey(b.workspace.id, { agent_id: agentA.id })).rejects.toThrow(/No agent/);
  });
});

describe("request validation", () => {
  it("lists every bad field", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const res = await api("/api/v1/agents", { key, body: { name: "", description: 42 } });
    expectProblem(res, 400, "validation_failed");
    expect(res.json.errors).toContainEqual({ field: "name", message: "name is required" });
    expect(res.json.errors).toContainEqual({ field: "description", message: expect.stringContaining("expected string") });
    expect(new Set(res.json.errors.map((e: { field: string }) => e.field))).toEqual(new Set(["name", "description"]));
  });

  it("rejects malformed JSON with 400 and a wrong content type with 415, changing nothing", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const bad = await api("/api/v1/agents", { key, rawBody: '{"name": "x",', headers: { "content-type": "application/json" } });
    expectProblem(bad, 400, "malformed_json");
    const form = await api("/api/v1/agents", { key, rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectProblem(form, 415, "unsupported_media_type");
    expect((await api("/api/v1/agents", { key })).json.data).toEqual([]);
  });

  it("rejects bodies over the limit with 413, by Content-Length or while streaming", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const big = JSON.stringify({ name: "big", description: "x".repeat(1024 * 1024) });
    expectProblem(await api("/api/v1/agents", { key, rawBody: big, headers: { "content-type": "application/json" } }), 413, "payload_too_large");

    // Chunked: no Content-Length, so the limit is enforced on the bytes as they arrive.
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
        c.close();
      },
    });
    const res = await fetch(url() + "/api/v1/agents", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await api("/api/v1/agents", { key })).json.data).toEqual([]);
  });

  it("rejects bad pagination and filter parameters by field", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const res = await api("/api/v1/audit?limit=0&from=yesterday&action=DROP TABLE", { key });
    expectProblem(res, 400, "validation_failed");
    expect(res.json.errors.map((e: { field: string }) => e.field).sort()).toEqual(["action", "from", "limit"]);
  });

  it("rejects a malformed x-trace-id", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    expectProblem(await api("/api/v1/me", { key, headers: { "x-trace-id": "has spaces" } }), 400, "invalid_request");
  });

  it("answers an id of the wrong shape with 404", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    expectProblem(await api("/api/v1/agents/agent_nope", { key }), 404, "not_found");
  });
});

describe("pagination", () => {
  it("pages newest first with limit and starting_after", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await newAgent(workspace.id, `agent-${i}`));
    const newestFirst = created.map((a) => a.id).reverse();

    const first = await api("/api/v1/agents?limit=2", { key });
    expect(first.json.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.json.has_more).toBe(true);
    const second = await api(`/api/v1/agents?limit=2&starting_after=${first.json.data[1].id}`, { key });
    expect(second.json.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(2, 4));
    const last = await api(`/api/v1/agents?limit=2&starting_after=${second.json.data[1].id}`, { key });
    expect(last.json.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(4));
    expect(last.json.has_more).toBe(false);
  });
});

describe("public endpoints", () => {
  it("serves the OpenAPI document at /api/v1/openapi.json without a key", async () => {
    const res = await api("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(Object.keys(res.json.paths)).toContain("/v1/agents/{id}");
  });

  it("created agents match the documented Agent schema", async () => {
    const { agentSchema } = await import("../../domains/agents/schemas");
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const res = await api("/api/v1/agents", { key, body: { name: "shaped", description: "does things" } });
    expect(res.status).toBe(201);
    expect(agentSchema.strict().parse(res.json)).toEqual(res.json);
  });
});
