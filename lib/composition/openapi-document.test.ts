import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { discoverRoutes } from "../../test/helpers/api-server";
import { buildOpenApiDocument } from "./openapi-document";
import { OPERATIONS } from "./operations";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** `app/api/v1/agents/[id]/route.ts` → `/v1/agents/{id}`. */
function openApiPath(file: string): string {
  const rel = file.split("/app/api")[1]!.replace(/\/route\.ts$/, "");
  return rel.replace(/\[(\w+)\]/g, "{$1}");
}

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(buildOpenApiDocument() as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes exactly the methods the /api/v1 route files export, and nothing else", async () => {
    const exported = new Set<string>();
    for (const route of discoverRoutes().filter((r) => r.file.includes("/app/api/v1/"))) {
      const path = openApiPath(route.file);
      if (path === "/v1/openapi.json") continue;
      const source = fs.readFileSync(route.file, "utf8");
      for (const m of METHODS) if (new RegExp(`export const ${m}\\b`).test(source)) exported.add(`${m} ${path}`);
    }
    const documented = new Set(OPERATIONS.map((o) => `${o.method} ${o.path}`));
    expect([...documented].sort()).toEqual([...exported].sort());
  });

  it("uses each operation in its route: the route validates with the documented schemas", async () => {
    for (const op of OPERATIONS) {
      const file = `app/api${op.path.replace(/\{(\w+)\}/g, "[$1]")}/route.ts`;
      const source = fs.readFileSync(file, "utf8");
      expect(source, `${file} should be built with withApiKey(${op.operationId}Op, ...)`).toMatch(
        new RegExp(`export const ${op.method} = withApiKey\\(\\w+Op,`),
      );
    }
  });

  it("documents request bodies and query parameters from the zod schemas", () => {
    const doc = buildOpenApiDocument() as any;
    const create = doc.paths["/v1/agents"].post;
    expect(create.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", maxLength: 64 } },
    });
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key");
    const audit = doc.paths["/v1/audit"].get;
    expect(audit.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["resource_id", "agent_id", "action", "trace_id", "from", "to", "limit", "starting_after"]),
    );
    expect(doc.components.schemas.Agent).toBeDefined();
    expect(doc.components.schemas.Problem).toBeDefined();
  });
});
