import { z } from "zod";
import { problemSchema } from "../platform/api/common-schemas";
import type { Operation } from "../platform/api/operation";
import { OPERATIONS } from "./operations";
import { toJsonSchema } from "../platform/api/openapi/json-schema";

type Json = Record<string, unknown>;

/** zod → JSON Schema, named schemas hoisted into components. */
function schemaOf(schema: z.ZodType, io: "input" | "output", components: Json): Json {
  const converted = toJsonSchema(schema, io);
  const { $defs, $schema: _ignored, ...rest } = converted;
  for (const [name, def] of Object.entries(($defs as Json | undefined) ?? {})) components[name] = rewriteRefs(def);
  return rewriteRefs(rest) as Json;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Json).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace("#/$defs/", "#/components/schemas/") : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

const ERROR_RESPONSES: Record<string, string> = {
  "400": "Invalid request (validation_failed, malformed_json, invalid_request)",
  "401": "Missing, unknown or revoked API key",
  "403": "The key may not do this (forbidden, insufficient_scope)",
  "404": "Not found (including ids of other workspaces)",
  "413": "Body too large",
  "429": "Rate limited (rate_limited), or too many approvals pending for this agent (too_many_pending_approvals); see the retry-after header",
};

function operationObject(op: Operation, components: Json): Json {
  const parameters: Json[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (op.query) {
    const q = schemaOf(op.query, "input", components) as { properties?: Json; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      const { description, ...rest } = schema as Json;
      parameters.push({ name, in: "query", required: q.required?.includes(name) ?? false, description, schema: rest });
    }
  }
  const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
  const errors: Record<string, Json> = {};
  for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
    if (status === "413" && !op.body) continue;
    errors[status] = { description, content: problem };
  }
  if (op.method === "POST") {
    errors["409"] = { description: "Conflict, or a request with this Idempotency-Key is still running", content: problem };
    errors["422"] = { description: "This Idempotency-Key was used with a different request", content: problem };
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "Makes the POST safe to retry: the first response is stored for 24 hours and replayed.",
      schema: { type: "string", maxLength: 255 },
    });
  }
  parameters.push({
    name: "x-trace-id",
    in: "header",
    required: false,
    description: "Your trace id, kept on the audit entries and webhooks this request causes.",
    schema: { type: "string", maxLength: 128 },
  });
  const responses: Json = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = {
      description: r.description,
      ...(r.schema ? { content: { [r.contentType ?? "application/json"]: { schema: schemaOf(r.schema, "output", components) } } } : {}),
    };
  }
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(op.scope ? { "x-required-scope": op.scope } : {}),
    parameters,
    ...(op.body
      ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(op.body, "input", components) } } } }
      : {}),
    responses: { ...responses, ...errors },
  };
}

/** The OpenAPI 3.1 document, built from the same operations (and zod schemas) the routes use. */
export function buildOpenApiDocument(serverUrl = "/api"): Json {
  const components: Json = {};
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = operationObject(op, components);
  }
  schemaOf(problemSchema, "output", components);
  return {
    openapi: "3.1.0",
    info: {
      title: "AgentDraft API",
      version: "1",
      description:
        "The coordination layer for teams of AI agents. Authenticate with `Authorization: Bearer ad_live_...`. " +
        "Errors are RFC 9457 problems with a stable `code`. Lists are newest first with `limit` and `starting_after`.",
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An AgentDraft API key (ad_live_... or ad_test_...)" } },
    },
  };
}
