import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../openapi-document";
import { OPERATIONS } from "../operations";
import { exampleOf, examplePath, operationsOf, schemasOf, typeLabel } from "./openapi-view";

const doc = buildOpenApiDocument();
const views = operationsOf(doc);

describe("API reference view of the OpenAPI document", () => {
  it("shows every operation of the registry, with its scope and parameters", () => {
    expect(views.map((v) => v.id).sort()).toEqual(OPERATIONS.map((o) => o.operationId).sort());
    const place = views.find((v) => v.id === "placeHold")!;
    expect(place).toMatchObject({ method: "POST", path: "/v1/calendars/{id}/holds", tag: "Holds", scope: "calendar" });
    expect(place.parameters.map((p) => p.name)).toEqual(["id", "Idempotency-Key", "x-trace-id"]);
    expect(place.body!.fields.find((f) => f.name === "priority")).toMatchObject({ type: "integer", required: false, constraints: ["0–100", "default 50"] });
    expect(place.responses.map((r) => r.status)).toEqual(expect.arrayContaining(["201", "400", "401", "409", "422"]));
    expect(place.responses.find((r) => r.status === "201")!.ref).toBe("Hold");
  });

  it("gives each request body an example the API's own schema accepts", () => {
    for (const op of OPERATIONS.filter((o) => o.body)) {
      const view = views.find((v) => v.id === op.operationId)!;
      // Placeholder ids (`cal_...`) read well in the docs; with a well-formed id in their place the example is valid.
      const filled = JSON.parse(JSON.stringify(view.body!.example).replace(/"([a-z]+)_\.\.\."/g, '"$1_00000000000000000000000000"'));
      const parsed = op.body!.safeParse(filled);
      expect(parsed.success, `${op.operationId}: ${JSON.stringify(view.body!.example)} ${parsed.error?.message ?? ""}`).toBe(true);
      expect(view.curl).toContain(`-d '${JSON.stringify(view.body!.example)}'`);
    }
  });

  it("fills path parameters in example requests with ids of the right prefix", () => {
    expect(examplePath("/v1/calendars/{id}/holds")).toBe("/v1/calendars/cal_.../holds");
    expect(examplePath("/v1/messages/{id}/attachments/{attachment_id}")).toBe("/v1/messages/msg_.../attachments/att_...");
    for (const v of views) expect(v.curl, v.id).not.toMatch(/\{\w+\}|\/id_\.\.\./);
  });

  it("labels types readably and lists the named schemas with their fields", () => {
    expect(typeLabel({ type: ["string", "null"] })).toBe("string | null");
    expect(typeLabel({ type: "array", items: { $ref: "#/components/schemas/Hold" } })).toBe("Hold[]");
    expect(typeLabel({ enum: ["held", "expired"] })).toBe('"held" | "expired"');
    expect(exampleOf(doc, { type: "string", format: "date-time" }, "end_time")).toMatch(/^\d{4}-\d{2}-\d{2}T17:00:00Z$/);
    const hold = schemasOf(doc).find((s) => s.name === "Hold")!;
    expect(hold.fields.map((f) => f.name)).toEqual(expect.arrayContaining(["id", "status", "preempted_by", "preempted_by.hold_id", "expires_at"]));
  });
});
