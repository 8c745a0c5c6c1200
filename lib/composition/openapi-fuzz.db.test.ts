// @suite moved-clock
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { serveApiForTests } from "../../test/helpers/api-client";
import { setTestEnv } from "../../test/helpers/env";
import { newWorkspace, newKey } from "../../test/helpers/fixtures";
import { buildOpenApiDocument } from "./openapi-document";
import { exampleOf, operationsOf, type JsonSchema } from "./docs/openapi-view";
import { sealAuditChain } from "../platform/audit/seal-chain";
import { getDb } from "../../db/client";
import { onUtcDay } from "../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

// SPEC §10, generated from the OpenAPI document so that a new operation is fuzzed the day it
// is added: every operation gets broken JSON, wrong types, NUL and lone surrogates, huge and
// deep values, junk ids and junk query values. No answer may be 5xx, every request that is
// malformed by construction must be 4xx, and none of them may change anything.

setTestEnv({ API_RATE_LIMIT_BURST: "1000000", API_RATE_LIMIT_PER_SECOND: "1000000", API_WORKSPACE_RATE_LIMIT_BURST: "1000000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "1000000" });
const { api, url } = serveApiForTests();

type Json = Record<string, unknown>;
type Case = { name: string; method: string; path: string; body?: string | Uint8Array<ArrayBuffer>; contentType?: string; headers?: Record<string, string>; mustFail: boolean };

const doc = buildOpenApiDocument() as Json;
const operations = operationsOf(doc);
const components = (doc.components as Json).schemas as Record<string, JsonSchema>;
const resolve = (s: JsonSchema): JsonSchema => (s.$ref ? resolve(components[s.$ref.split("/").pop()!] ?? {}) : s);

/** The JSON types a schema admits (null: any). */
function typesOf(schema: JsonSchema): Set<string> | null {
  const s = resolve(schema);
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const all = new Set<string>();
    for (const u of union) {
      const t = typesOf(u);
      if (!t) return null;
      t.forEach((x) => all.add(x));
    }
    return all;
  }
  if (s.enum || s.const !== undefined) return new Set(["enum"]);
  if (!s.type) return null;
  const types = new Set([s.type].flat() as string[]);
  if (types.has("integer")) types.add("number");
  return types;
}

const WRONG_VALUES: [string, unknown][] = [
  ["string", "not-the-right-type"],
  ["number", 12345],
  ["number", 1e308],
  ["boolean", true],
  ["null", null],
  ["array", [1, "two", null]],
  ["object", { nested: { deeper: 1 } }],
];
const deep = (levels: number): unknown => {
  let v: unknown = "bottom";
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
};
const HOSTILE_STRINGS: [string, string][] = [
  ["NUL", "\u0000"],
  ["embedded NUL", "ok\u0000ok"],
  ["lone high surrogate", "\ud800"],
  ["lone low surrogate", "x\udc00y"],
];
const JUNK_IDS = ["%00", "x%00y", "%ED%A0%80", "x", "'%20or%201=1--", "a".repeat(3000), "..%2F..%2Fetc", "%F0%9F%92%A9", "cal_00000000000000000000000000", "CAL_00000000000000000000000000"];
/** Ids in bodies and queries (issue #37: `"0000-00-00"` as an agent_id once reached a 500): all must be 4xx. */
const JUNK_BODY_IDS = ["0000-00-00", "NaN", "x", "", "-1", "null", "1e309", "agent_", "nope_00000000000000000000000000", "CAL_00000000000000000000000000", "agent_0000000000000000000000000l", "a".repeat(3000)];
const isIdField = (name: string) => /_ids?$/.test(name) && !["correlation_id", "trace_id", "resource_id"].includes(name);
const JUNK_QUERY = ["%00", "a%00b", "-1", "abc", "1e309", "x".repeat(3000), "%ED%A0%80", "%5B%5D", "%7B%7D", "2026-13-45T99:99:99Z"];
const BROKEN_JSON = ['{"a":', '{"a":}', "[", '"', "nul", '{"a":1}}', "\u0000", '{"a":"\\ud800"', "{'single':1}"];

/** Every case for one operation, with its path built from real ids of the fixture. */
function casesFor(op: (typeof operations)[number], ids: Record<string, string>, example: unknown): Case[] {
  const out: Case[] = [];
  const pathWith = (junk?: { name: string; value: string }) =>
    "/api" +
    op.path.replace(/([\w-]+)\/\{(\w+)\}/g, (_, collection: string, name: string) =>
      `${collection}/${junk?.name === name ? junk.value : (ids[collection] ?? "unknown_00000000000000000000000000")}`,
    );
  const requiredQuery = op.parameters.filter((p) => p.in === "query" && p.required);
  const baseQuery = requiredQuery.map((p) => `${p.name}=${encodeURIComponent(p.name === "from" ? T(8) : p.name === "to" ? T(24 + 8) : "x")}`);
  const withQuery = (path: string, extra: string[] = []) => {
    const q = [...baseQuery, ...extra];
    return q.length ? `${path}?${q.join("&")}` : path;
  };
  const hasBody = Boolean(op.body);
  const exampleBody = hasBody ? JSON.stringify(example) : undefined;
  const base = { method: op.method, contentType: hasBody ? "application/json" : undefined };

  // Junk ids in every path parameter: 404 (or 400), never anything else.
  for (const p of op.parameters.filter((x) => x.in === "path")) {
    for (const value of JUNK_IDS) out.push({ ...base, name: `${op.id} path ${p.name}=${value.slice(0, 20)}`, path: withQuery(pathWith({ name: p.name, value })), body: exampleBody, mustFail: true });
  }
  // Junk in every query parameter (some junk is valid text: those may succeed; GETs change nothing).
  for (const p of op.parameters.filter((x) => x.in === "query")) {
    const others = baseQuery.filter((q) => !q.startsWith(`${p.name}=`));
    // An id parameter's junk names nothing: refused (400), not answered with an empty page.
    if (isIdField(p.name)) for (const junk of JUNK_BODY_IDS.filter(Boolean)) out.push({ ...base, name: `${op.id} query ${p.name}=junk id ${junk.slice(0, 20)}`, path: `${pathWith()}?${[...others, `${p.name}=${encodeURIComponent(junk)}`].join("&")}`, body: exampleBody, mustFail: true });
    for (const value of JUNK_QUERY) {
      out.push({ ...base, name: `${op.id} query ${p.name}=${value.slice(0, 20)}`, path: `${pathWith()}?${[...others, `${p.name}=${value}`].join("&")}`, body: exampleBody, mustFail: op.method !== "GET" && /%00|%ED/.test(value) });
    }
    out.push({ ...base, name: `${op.id} query ${p.name} repeated`, path: `${pathWith()}?${[...others, `${p.name}=a`, `${p.name}=b`].join("&")}`, body: exampleBody, mustFail: false });
  }
  // Broken JSON and non-UTF-8 bytes, on every operation that reads a body (and those that do not).
  const path = withQuery(pathWith());
  if (op.method !== "GET") {
    for (const text of BROKEN_JSON) out.push({ ...base, name: `${op.id} broken json ${JSON.stringify(text)}`, path, body: text, contentType: "application/json", mustFail: true });
    out.push({ ...base, name: `${op.id} invalid utf-8`, path, body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), contentType: "application/json", mustFail: true });
    out.push({ ...base, name: `${op.id} 200k-deep json`, path, body: "[".repeat(200_000) + "]".repeat(200_000), contentType: "application/json", mustFail: true });
    out.push({ ...base, name: `${op.id} oversized body`, path, body: JSON.stringify({ x: "y".repeat(1_100_000) }), contentType: "application/json", mustFail: true });
    out.push({ ...base, name: `${op.id} text/plain`, path, body: "hello", contentType: "text/plain", mustFail: true });
  }
  if (!hasBody || !example || typeof example !== "object") return out;

  // Not an object at all.
  for (const v of ["[]", '"text"', "42", "null", "true"]) out.push({ ...base, name: `${op.id} body ${v}`, path, body: v, mustFail: true });
  const schema = resolve((doc.paths as any)[op.path][op.method.toLowerCase()].requestBody.content["application/json"].schema);
  const send = (name: string, field: string, value: unknown) =>
    out.push({ ...base, name: `${op.id} ${field}: ${name}`, path, body: JSON.stringify({ ...(example as Json), [field]: value }), mustFail: true });
  for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
    // Junk in every id field, alone and in an array.
    if (isIdField(field)) for (const junk of JUNK_BODY_IDS) send(`junk id ${JSON.stringify(junk.slice(0, 20))}`, field, field.endsWith("_ids") ? [junk] : junk);
    const types = typesOf(fieldSchema);
    if (types) for (const [type, value] of WRONG_VALUES) if (!types.has(type)) send(`wrong type ${type}`, field, value);
    if (types?.has("enum")) send("not a member", field, "not-a-member");
    for (const [name, s] of HOSTILE_STRINGS) {
      send(name, field, s);
      send(`${name} in an array`, field, [s]);
      send(`${name} as a key`, field, { [s]: 1 });
    }
    send("nested 40 deep", field, deep(40));
    const s = resolve(fieldSchema);
    const stringSchema = s.type === "string" ? s : (s.anyOf ?? []).map(resolve).find((u) => u.type === "string");
    if (stringSchema && typeof stringSchema.maxLength === "number" && stringSchema.maxLength < 900_000) send("one over maxLength", field, "x".repeat(stringSchema.maxLength + 1));
    const arraySchema = s.type === "array" ? s : (s.anyOf ?? []).map(resolve).find((u) => u.type === "array");
    if (arraySchema && typeof arraySchema.maxItems === "number") send("one item over maxItems", field, Array.from({ length: arraySchema.maxItems + 1 }, () => exampleOf(doc, arraySchema.items ?? {}, field)));
  }
  return out;
}

/** A fingerprint of everything a workspace owns, except what every request touches (key use, rate limit). */
async function snapshot(workspaceId: string): Promise<Record<string, string>> {
  await sealAuditChain();
  const db = await getDb();
  const tables = (await db.execute(sql`
    select table_name from information_schema.columns
    where column_name = 'workspace_id' and table_schema = current_schema()
      and table_name not in ('api_keys', 'idempotency_keys', 'rate_limit_buckets')
    order by table_name`)) as unknown as { rows: { table_name: string }[] };
  const out: Record<string, string> = {};
  for (const { table_name } of tables.rows) {
    const res = (await db.execute(
      sql`select count(*)::text || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as fp from ${sql.identifier(table_name)} t where t.workspace_id = ${workspaceId}`,
    )) as unknown as { rows: { fp: string }[] };
    out[table_name] = res.rows[0]!.fp;
  }
  return out;
}

describe("OpenAPI-driven fuzzing (SPEC §10)", () => {
  it("answers every malformed request with a 4xx problem, never a 5xx, and changes nothing", { timeout: 600_000 } /* over a thousand requests: a stall guard for a busy machine, not a budget */, async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const call = async (path: string, body?: unknown) => {
      const res = await api(path, { key, body });
      expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
      return res.json;
    };
    // A fixture with one of everything, so junk is also tried against real ids.
    const agent = await call("/api/v1/agents", { name: "fuzz-agent" });
    const calendar = await call("/api/v1/calendars", { name: "Fuzz room" });
    const hold = await call(`/api/v1/calendars/${calendar.id}/holds`, { start_time: T(15), end_time: T(16), hold_ttl_seconds: 3600 });
    const inbox = await call("/api/v1/inboxes", { agent_id: agent.id, username: `fuzz-${Date.now()}` });
    const message = await call(`/api/v1/inboxes/${inbox.id}/messages`, { to: ["someone@example.com"], subject: "Fuzz", text: "Hello" });
    const approval = await call("/api/v1/approvals", { summary: "Fuzz", evidence: { a: 1 } });
    const endpoint = await call("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/agentdraft" });
    const ids: Record<string, string> = {
      agents: agent.id,
      calendars: calendar.id,
      holds: hold.id,
      inboxes: inbox.id,
      messages: message.id,
      threads: message.thread_id,
      approvals: approval.id,
      "webhook-endpoints": endpoint.id,
      events: "evt_00000000000000000000000000",
      attachments: "att_00000000000000000000000000",
      "webhook-deliveries": "whd_00000000000000000000000000",
    };
    const realValue = (v: unknown): unknown => {
      if (typeof v === "string" && /^[a-z]+_\.\.\.$/.test(v)) return ({ agent: agent.id, cal: calendar.id } as Record<string, string>)[v.slice(0, -4)] ?? v;
      if (Array.isArray(v)) return v.map(realValue);
      if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, realValue(x)]));
      return v;
    };

    const cases = operations.flatMap((op) => casesFor(op, ids, realValue(op.body?.example)));
    // Header junk on every POST: trace ids and idempotency keys.
    for (const op of operations.filter((o) => o.method === "POST")) {
      const path = "/api" + op.path.replace(/([\w-]+)\/\{(\w+)\}/g, (_, c: string) => `${c}/${ids[c]}`);
      const body = op.body ? JSON.stringify(realValue(op.body.example)) : undefined;
      for (const headers of <Record<string, string>[]>[{ "x-trace-id": "a".repeat(500) }, { "x-trace-id": "bad trace id" }, { "idempotency-key": "é".repeat(10) }, { "idempotency-key": "k".repeat(300) }]) {
        cases.push({ name: `${op.id} header ${Object.keys(headers)[0]}`, method: "POST", path, body, contentType: "application/json", headers, mustFail: true });
      }
    }
    expect(cases.length).toBeGreaterThan(1000);

    const before = await snapshot(workspace.id);
    const failures: string[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          const res = await fetch(url() + c.path, {
            method: c.method,
            headers: { authorization: `Bearer ${key}`, ...(c.contentType ? { "content-type": c.contentType } : {}), ...c.headers },
            body: c.method === "GET" ? undefined : c.body,
          });
          // An accepted event stream stays open: its status and headers are the answer.
          const text = res.headers.get("content-type")?.startsWith("text/event-stream") ? (await res.body?.cancel(), "") : await res.text();
          if (res.status >= 500) failures.push(`${c.name} → ${res.status} ${text.slice(0, 200)}`);
          else if (c.mustFail && res.status < 400) failures.push(`${c.name} → ${res.status}: a malformed request was accepted`);
          else if (res.status >= 400 && res.status !== 404 && res.status !== 405 && res.headers.get("content-type") !== "application/problem+json" && text) failures.push(`${c.name} → ${res.status} without a problem body`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`[fuzz] ${cases.length} requests over ${operations.length} operations in ${seconds.toFixed(1)} s`);
    expect(failures).toEqual([]);
    expect(await snapshot(workspace.id)).toEqual(before);
  });
});
