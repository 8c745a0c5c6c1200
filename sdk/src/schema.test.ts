import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { generateSchemaTypes, SCHEMA_FILE } from "../codegen/generate-types";

describe("sdk/src/schema.ts", () => {
  it("matches the API's OpenAPI document (run `npm run sdk:generate` after changing an operation)", async () => {
    const generated = await generateSchemaTypes();
    const committed = fs.readFileSync(SCHEMA_FILE, "utf8");
    expect(committed === generated, "sdk/src/schema.ts is stale: run `npm run sdk:generate` and commit it").toBe(true);
    expect(generated).toContain('"/v1/calendars/{id}/holds"');
  });
});
