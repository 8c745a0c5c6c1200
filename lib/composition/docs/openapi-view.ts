/**
 * Turns the OpenAPI document into what the API reference page shows: operations by tag,
 * parameters, fields of request and response schemas, and example requests. Pure functions
 * over the document, so the page needs no client-side JavaScript.
 */
type Json = Record<string, unknown>;
export type JsonSchema = Json & {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  default?: unknown;
  additionalProperties?: boolean | JsonSchema;
};

export type Field = { name: string; depth: number; type: string; ref?: string; required: boolean; description?: string; constraints: string[] };
export type Parameter = { name: string; in: string; required: boolean; type: string; description?: string; constraints: string[] };
export type ResponseView = { status: string; description: string; contentType?: string; ref?: string; fields: Field[] };
export type OperationView = {
  id: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  scope?: string;
  parameters: Parameter[];
  body?: { fields: Field[]; example: unknown };
  responses: ResponseView[];
  curl: string;
};

const refName = (ref: string) => ref.split("/").pop()!;

function resolve(doc: Json, schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const components = (doc.components as Json).schemas as Record<string, JsonSchema>;
  return resolve(doc, components[refName(schema.$ref)] ?? {});
}

/** A short type label: `string (date-time)`, `Hold[]`, `"held" | "expired"`, `integer | null`. */
export function typeLabel(schema: JsonSchema): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeLabel).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return "any JSON";
  return types
    .map((t) => {
      if (t === "array") return `${schema.items ? typeLabel(schema.items) : "any"}[]`;
      if (t === "string" && schema.format && schema.format !== "binary") return `string (${schema.format})`;
      if (t === "object" && !schema.properties && schema.additionalProperties) return "object (map)";
      return t;
    })
    .join(" | ");
}

const BIG = 1e12;

/** Human-readable limits; regexes of formatted strings are left out (the format says it). */
export function constraints(schema: JsonSchema): string[] {
  const out: string[] = [];
  const n = (k: string) => (typeof schema[k] === "number" && Math.abs(schema[k] as number) < BIG ? (schema[k] as number) : undefined);
  if (n("minimum") !== undefined && n("maximum") !== undefined) out.push(`${n("minimum")}–${n("maximum")}`);
  else if (n("minimum") !== undefined) out.push(`≥ ${n("minimum")}`);
  else if (n("maximum") !== undefined) out.push(`≤ ${n("maximum")}`);
  if (n("exclusiveMinimum") !== undefined) out.push(`> ${n("exclusiveMinimum")}`);
  if (n("minLength") !== undefined && (n("minLength") as number) > 1) out.push(`min ${n("minLength")} chars`);
  if (n("maxLength") !== undefined) out.push(`max ${n("maxLength")} chars`);
  if (n("minItems") !== undefined && (n("minItems") as number) > 0) out.push(`min ${n("minItems")} items`);
  if (n("maxItems") !== undefined) out.push(`max ${n("maxItems")} items`);
  if (typeof schema.pattern === "string" && !schema.format) out.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  return out;
}

/** An object schema's fields, nested objects (not named schemas) flattened with dotted names. */
export function fieldsOf(doc: Json, schema: JsonSchema, depth = 0, prefix = ""): Field[] {
  const s = resolve(doc, schema);
  if (!s.properties) return [];
  const fields: Field[] = [];
  for (const [name, prop] of Object.entries(s.properties)) {
    const inner = (prop.anyOf ?? prop.oneOf)?.find((p) => p.type !== "null") ?? prop;
    const item = inner.type === "array" && inner.items ? inner.items : undefined;
    const ref = prop.$ref ?? inner.$ref ?? item?.$ref;
    fields.push({
      name: prefix + name,
      depth,
      type: typeLabel(prop),
      ref: ref ? refName(ref) : undefined,
      required: s.required?.includes(name) ?? false,
      description: prop.description ?? inner.description,
      constraints: constraints(inner),
    });
    const nested = item && !item.$ref ? item : !inner.$ref ? inner : undefined;
    if (nested?.properties && depth < 3) fields.push(...fieldsOf(doc, nested, depth + 1, `${prefix}${name}${item ? "[]" : ""}.`));
  }
  return fields;
}

const EXAMPLE_TIMES: Record<string, string> = {
  start_time: "2030-01-01T15:00:00Z",
  from: "2030-01-01T08:00:00Z",
  end_time: "2030-01-01T17:00:00Z",
  to: "2030-01-01T18:00:00Z",
};
const EXAMPLE_STRINGS: Record<string, string> = {
  summary: "Refund order A-1 (120 EUR)",
  action_class: "refund",
  currency: "EUR",
  username: "ops",
  name: "ops-agent",
  url: "https://agent.example.com/webhooks/agentdraft",
  action: "agent.booked_meeting",
};

/** Optional fields worth showing in examples. */
const ILLUSTRATIVE = ["priority", "hold_ttl_seconds", "amount", "currency", "action_class", "display_name", "version", "subject"];

/** An example value for a schema: defaults and enums first, then a value of the right shape. */
export function exampleOf(doc: Json, schema: JsonSchema, name = ""): unknown {
  const s = resolve(doc, schema);
  if (s.default !== undefined && !(typeof s.default === "object" && s.default !== null && Object.keys(s.default).length === 0)) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const union = s.anyOf ?? s.oneOf;
  if (union) return exampleOf(doc, union.find((u) => u.type !== "null") ?? union[0]!, name);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object":
      if (!s.properties) return name === "evidence" ? { order: "A-1" } : {};
    {
      const shown = Object.entries(s.properties).filter(([k]) => s.required?.includes(k) || ILLUSTRATIVE.includes(k));
      // An update with every field optional still needs one to change.
      const entries = shown.length > 0 ? shown : Object.entries(s.properties).slice(0, 1);
      return Object.fromEntries(entries.map(([k, v]) => [k, exampleOf(doc, v, k)]));
    }
    case "array":
      return s.items ? [exampleOf(doc, s.items, name)] : name.endsWith("_ids") ? [`${name.startsWith("calendar") ? "cal" : "agent"}_...`] : [];
    case "integer":
    case "number":
      if (name === "hold_ttl_seconds") return 60;
      if (name === "amount") return 120;
      return typeof s.minimum === "number" ? Math.max(s.minimum, 1) : 1;
    case "boolean":
      return true;
    case "string":
      if (s.format === "date-time") return EXAMPLE_TIMES[name] ?? "2030-01-01T15:00:00Z";
      if (s.format === "email") return "ops@agents.localhost";
      // An id field's pattern names its prefix (lib/platform/api/id-field.ts): `agent_...`.
      if (typeof s.pattern === "string" && /^\^[a-z]+_\[/.test(s.pattern)) return `${/^\^([a-z]+)_/.exec(s.pattern)![1]}_...`;
      return EXAMPLE_STRINGS[name] ?? (name.endsWith("_id") ? `${name.replace(/_id$/, "")}_...` : "text");
    default:
      return name === "evidence" ? { order: "A-1", amount: 120 } : {};
  }
}

/** Id prefixes by the collection a path parameter follows (`/v1/holds/{id}` → `hold_...`). */
const ID_PREFIXES: Record<string, string> = {
  agents: "agent",
  approvals: "appr",
  "approval-policies": "apol",
  calendars: "cal",
  events: "evt",
  holds: "hold",
  inboxes: "inbox",
  domains: "dom",
  messages: "msg",
  drafts: "drf",
  threads: "thr",
  attachments: "att",
  "webhook-endpoints": "whe",
  "webhook-deliveries": "whd",
  handoffs: "hof",
  traces: "trace",
  leases: "lease",
};

/** `/v1/calendars/{id}/holds` → `/v1/calendars/cal_.../holds`. */
export function examplePath(path: string): string {
  return path.replace(/([\w-]+)\/\{(\w+)\}/g, (_, collection: string) => `${collection}/${ID_PREFIXES[collection] ?? "id"}_...`);
}

function curlFor(method: string, path: string, example: unknown, hasBody: boolean): string {
  const lines = [`curl -s${method === "GET" ? "" : ` -X ${method}`} "http://localhost:3000/api${examplePath(path)}"`, `  -H "Authorization: Bearer $AGENTDRAFT_KEY"`];
  if (method === "POST") lines.push(`  -H "Idempotency-Key: $(uuidgen)"`);
  if (hasBody) lines.push(`  -H "content-type: application/json"`, `  -d '${JSON.stringify(example)}'`);
  return lines.join(" \\\n");
}

/** Every operation of the document, in document order, ready to render. */
export function operationsOf(doc: Json): OperationView[] {
  const out: OperationView[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const parameters = ((op.parameters as Json[] | undefined) ?? []).map((p) => ({
        name: p.name as string,
        in: p.in as string,
        required: Boolean(p.required),
        type: typeLabel((p.schema as JsonSchema) ?? {}),
        description: p.description as string | undefined,
        constraints: constraints((p.schema as JsonSchema) ?? {}),
      }));
      const bodySchema = ((op.requestBody as Json | undefined)?.content as Record<string, { schema: JsonSchema }> | undefined)?.["application/json"]?.schema;
      const example = bodySchema ? exampleOf(doc, bodySchema) : undefined;
      const responses = Object.entries(op.responses as Record<string, Json>).map(([status, r]) => {
        const [contentType, media] = Object.entries((r.content as Record<string, { schema: JsonSchema }> | undefined) ?? {})[0] ?? [];
        const schema = media?.schema;
        const ref = schema?.$ref ?? (schema?.properties?.data?.items as JsonSchema | undefined)?.$ref;
        return {
          status,
          description: r.description as string,
          contentType,
          ref: ref ? refName(ref) : undefined,
          fields: schema && !schema.$ref && Number(status) < 400 ? fieldsOf(doc, schema) : [],
        };
      });
      const upper = method.toUpperCase();
      out.push({
        id: op.operationId as string,
        method: upper,
        path,
        summary: op.summary as string,
        description: op.description as string | undefined,
        tag: (op.tags as string[])[0]!,
        scope: op["x-required-scope"] as string | undefined,
        parameters,
        body: bodySchema ? { fields: fieldsOf(doc, bodySchema), example } : undefined,
        responses,
        curl: curlFor(upper, path, example, Boolean(bodySchema)),
      });
    }
  }
  return out;
}

/** The named schemas (components), each with its fields. */
export function schemasOf(doc: Json): { name: string; description?: string; fields: Field[] }[] {
  const schemas = (doc.components as Json).schemas as Record<string, JsonSchema>;
  return Object.entries(schemas).map(([name, schema]) => ({ name, description: schema.description, fields: fieldsOf(doc, schema) }));
}
