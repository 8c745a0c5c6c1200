import { z } from "zod";

type Json = Record<string, unknown>;

/**
 * zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect). What a request may carry is closed: every
 * object of a body or a query says `additionalProperties: false` (records and loose objects keep
 * theirs), because the API refuses a field it does not take (lib/platform/api/unknown-fields.ts reads
 * this same schema), rather than dropping it without a word.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  return z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: io === "input" ? closeObjects : undefined,
  }) as Json;
}

function closeObjects(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def;
  if (def?.type === "object" && ctx.jsonSchema.additionalProperties === undefined) ctx.jsonSchema.additionalProperties = false;
}
