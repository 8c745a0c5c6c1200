// @suite moved-clock
import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { buildOpenApiDocument } from "../../composition/openapi-document";
import { exampleOf, operationsOf, type JsonSchema } from "../../composition/docs/openapi-view";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

// Issue #37, "fields silently ignored" and "malformed ids": a field an operation does not take
// is refused with a 400 that names it (in the body, nested objects included, and in the query),
// every field PATCH takes that makes sense at creation is taken at creation, and an id in a body
// or a query that is not shaped like one is a 400 naming the field, before any query runs.

setTestEnv({ API_RATE_LIMIT_BURST: "1000000", API_RATE_LIMIT_PER_SECOND: "1000000", API_WORKSPACE_RATE_LIMIT_BURST: "1000000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "1000000" });
const { api } = serveApiForTests();

type Json = Record<string, any>;
const doc = buildOpenApiDocument() as Json;
const operations = operationsOf(doc);
const components = doc.components.schemas as Record<string, JsonSchema>;
const resolve = (s: JsonSchema): JsonSchema => (s.$ref ? resolve(components[s.$ref.split("/").pop()!] ?? {}) : s);
const bodySchema = (path: string, method: string): JsonSchema | undefined => {
  const s = doc.paths[path][method.toLowerCase()].requestBody?.content["application/json"].schema;
  return s ? resolve(s) : undefined;
};

/** Every object schema of a request body, with where it is (for a nested unknown key). */
function objectSchemas(schema: JsonSchema, path: string[] = [], out: { path: string[]; schema: JsonSchema }[] = []) {
  const s = resolve(schema);
  for (const u of s.anyOf ?? s.oneOf ?? []) objectSchemas(u, path, out);
  if (s.properties) {
    out.push({ path, schema: s });
    for (const [k, v] of Object.entries(s.properties)) objectSchemas(v, [...path, k], out);
  }
  if (s.items && !Array.isArray(s.items)) objectSchemas(s.items, [...path, "0"], out);
  return out;
}

/** Fields that name a resource by id (names ending in _id or _ids; correlation and trace ids are the caller's own text). */
const isIdField = (name: string) => /_ids?$/.test(name) && !["correlation_id", "trace_id", "resource_id"].includes(name);

async function fixture() {
  const { workspace } = await newWorkspace();
  const { key } = await newKey(workspace.id);
  const call = async (path: string, body?: unknown) => {
    const res = await api(path, { key, body });
    expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
    return res.json;
  };
  const agent = await call("/api/v1/agents", { name: `fields-${Date.now()}` });
  const calendar = await call("/api/v1/calendars", { name: "Fields room" });
  const ids: Record<string, string> = { agents: agent.id, calendars: calendar.id };
  const realValue = (v: unknown): unknown => {
    if (typeof v === "string" && /^[a-z]+_\.\.\.$/.test(v)) return ({ agent: agent.id, cal: calendar.id } as Record<string, string>)[v.slice(0, -4)] ?? v;
    if (Array.isArray(v)) return v.map(realValue);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, realValue(x)]));
    return v;
  };
  const pathOf = (p: string) => "/api" + p.replace(/([\w-]+)\/\{(\w+)\}/g, (_, c: string) => `${c}/${ids[c] ?? `${c.slice(0, 4)}_00000000000000000000000000`}`);
  return { key, agent, calendar, realValue, pathOf };
}

describe("fields an operation does not take (issue #37)", () => {
  it("POST /v1/agents takes the priority ceiling at creation, and names a misspelt field", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const created = await api("/api/v1/agents", { key, body: { name: "ceilinged", max_priority: 50 } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.max_priority).toBe(50);
    expect((await api(`/api/v1/agents/${created.json.id}`, { key })).json.max_priority).toBe(50);

    const typo = await api("/api/v1/agents", { key, body: { name: "typo", max_prio: 50 } });
    expect(typo.status, typo.text).toBe(400);
    expect(typo.json.code).toBe("validation_failed");
    expect(typo.json.errors).toEqual([{ field: "max_prio", message: expect.stringContaining('did you mean "max_priority"') }]);
    expect(typo.json.detail).toContain("max_prio");
    // Nothing was created by the refused request.
    const list = await api("/api/v1/agents", { key });
    expect(list.json.data.map((a: { name: string }) => a.name)).toEqual(["ceilinged"]);
  });

  it("POST /v1/webhook-endpoints takes `enabled` at creation (as PATCH does)", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const res = await api("/api/v1/webhook-endpoints", { key, body: { url: "https://hooks.example.com/paused", enabled: false } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ enabled: false, disabled_reason: "disabled by request" });
  });

  it("every PATCH takes no field its creation refuses", () => {
    for (const patch of operations.filter((o) => o.method === "PATCH")) {
      const collection = patch.path.replace(/\/\{\w+\}$/, "");
      // Created at the collection, or under its parent (a draft: POST /v1/inboxes/{id}/drafts).
      const tail = collection.replace(/^\/v1/, "");
      const create = operations.find((o) => o.method === "POST" && (o.path === collection || o.path.endsWith(`}${tail}`)));
      expect(create, `${patch.id}: no POST ${collection}`).toBeDefined();
      // `version`: the optimistic-concurrency token of the state read, which only an edit names.
      const patchFields = Object.keys(bodySchema(patch.path, "PATCH")!.properties ?? {}).filter((f) => f !== "version");
      const createFields = Object.keys(bodySchema(create!.path, "POST")!.properties ?? {});
      expect(patchFields.filter((f) => !createFields.includes(f)), `${patch.id} takes fields ${create!.id} does not`).toEqual([]);
    }
  });

  it("the OpenAPI document closes every request object (additionalProperties: false), records aside", () => {
    for (const op of operations.filter((o) => o.body)) {
      for (const { path, schema } of objectSchemas(bodySchema(op.path, op.method)!)) {
        expect(schema.additionalProperties, `${op.id} ${path.join(".") || "(body)"}`).toBe(false);
      }
    }
  });

  it("every operation refuses an unknown body field, nested ones and unknown query parameters, naming each", async () => {
    const { key, realValue, pathOf } = await fixture();
    const failures: string[] = [];
    const expectNamed = async (name: string, path: string, method: string, body: unknown, field: string) => {
      const res = await api(path, { key, method, body });
      const named = (res.json?.errors ?? []).some((e: { field: string }) => e.field === field);
      if (res.status !== 400 || !named) failures.push(`${name} → ${res.status} ${res.text.slice(0, 200)}`);
    };
    for (const op of operations) {
      const path = pathOf(op.path);
      const requiredQuery = op.parameters.filter((p) => p.in === "query" && p.required).map((p) => `${p.name}=${encodeURIComponent(p.name === "from" ? T(8) : p.name === "to" ? T(24 + 8) : "x")}`);
      const example = op.body ? (realValue(op.body.example) as Json) : undefined;
      // Unknown query parameter.
      await expectNamed(`${op.id} ?zz_unknown`, `${path}?${[...requiredQuery, "zz_unknown=1"].join("&")}`, op.method, op.method === "GET" ? undefined : (example ?? {}), "zz_unknown");
      const withQuery = requiredQuery.length ? `${path}?${requiredQuery.join("&")}` : path;
      if (op.method === "GET") continue;
      // Unknown top-level field (also on operations that take no body at all).
      await expectNamed(`${op.id} body zz_unknown`, withQuery, op.method, { ...(example ?? {}), zz_unknown: 1 }, "zz_unknown");
      // Unknown field inside each nested object the body may carry.
      if (!op.body) continue;
      for (const { path: at, schema } of objectSchemas(bodySchema(op.path, op.method)!)) {
        if (at.length === 0 || at.includes("0")) continue;
        const nested = structuredClone(example!);
        let target: Json = nested;
        for (const k of at) target = target[k] = target[k] && typeof target[k] === "object" ? target[k] : exampleOf(doc, schema, k) ?? {};
        target.zz_nested = 1;
        await expectNamed(`${op.id} body ${at.join(".")}.zz_nested`, withQuery, op.method, nested, `${at.join(".")}.zz_nested`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("ids in bodies and queries are checked for shape before any query (issue #37)", () => {
  const JUNK = ["0000-00-00", "NaN", "x", "agent_", "1e309", "-1", "null", "agent_00000000000000000000000000x", "CAL_00000000000000000000000000", "ag\u00e9nt_0000000000000000000000000", "a".repeat(100)];

  it("POST /v1/inboxes with an agent_id not shaped like one is a 400 naming agent_id", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    for (const agent_id of ["0000-00-00", "NaN"]) {
      const res = await api("/api/v1/inboxes", { key, body: { agent_id } });
      expect(res.status, res.text).toBe(400);
      expect(res.json.errors).toEqual([{ field: "agent_id", message: expect.stringContaining("agent id") }]);
    }
  });

  it("every id field of every body and query answers junk with a 400 that names it", async () => {
    const { key, realValue, pathOf } = await fixture();
    const failures: string[] = [];
    let checked = 0;
    for (const op of operations) {
      const path = pathOf(op.path);
      const requiredQuery = op.parameters.filter((p) => p.in === "query" && p.required).map((p) => `${p.name}=${encodeURIComponent(p.name === "from" ? T(8) : p.name === "to" ? T(24 + 8) : "x")}`);
      const example = op.body ? (realValue(op.body.example) as Json) : undefined;
      for (const p of op.parameters.filter((x) => x.in === "query" && isIdField(x.name))) {
        checked++;
        for (const junk of JUNK) {
          const q = [...requiredQuery.filter((r) => !r.startsWith(`${p.name}=`)), `${p.name}=${encodeURIComponent(junk)}`];
          const res = await api(`${path}?${q.join("&")}`, { key, method: op.method, body: op.method === "GET" ? undefined : (example ?? {}) });
          if (res.status !== 400 || !(res.json?.errors ?? []).some((e: { field: string }) => e.field === p.name)) failures.push(`${op.id} ?${p.name}=${junk.slice(0, 20)} → ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
      if (!op.body) continue;
      const withQuery = requiredQuery.length ? `${path}?${requiredQuery.join("&")}` : path;
      for (const { path: at, schema } of objectSchemas(bodySchema(op.path, op.method)!)) {
        if (at.includes("0")) continue;
        for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
          if (!isIdField(field)) continue;
          checked++;
          const many = field.endsWith("_ids");
          for (const junk of JUNK) {
            const body = structuredClone(example!);
            let target: Json = body;
            for (const k of at) target = target[k] ??= {};
            target[field] = many ? [junk] : junk;
            const res = await api(withQuery, { key, method: op.method, body });
            const name = [...at, field, ...(many ? ["0"] : [])].join(".");
            if (res.status !== 400 || !(res.json?.errors ?? []).some((e: { field: string }) => e.field === name)) failures.push(`${op.id} ${name}=${junk.slice(0, 20)} → ${res.status} ${res.text.slice(0, 160)}`);
          }
          // The document says it is an id: a pattern with its prefix.
          const s = resolve(fieldSchema);
          const str = many ? resolve((s.anyOf ?? [s]).map(resolve).find((u) => u.type === "array")!.items!) : (s.anyOf ?? [s]).map(resolve).find((u) => u.type === "string");
          if (!String(str?.pattern ?? "").match(/^\^[a-z]+_/)) failures.push(`${op.id} ${field}: no id pattern in the document`);
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });
});
