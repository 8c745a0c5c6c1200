import type { z } from "zod";
import type { FieldError } from "../errors";
import { toJsonSchema } from "./openapi/json-schema";

type Schema = {
  $ref?: string;
  $defs?: Record<string, Schema>;
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema | Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

/** The request schema of an operation's body or query, as the OpenAPI document states it (converted once). */
const converted = new WeakMap<z.ZodType, Schema>();
function jsonSchemaOf(schema: z.ZodType): Schema {
  let s = converted.get(schema);
  if (!s) converted.set(schema, (s = toJsonSchema(schema, "input") as Schema));
  return s;
}

/** What takes no fields at all (an operation without a body or a query schema). */
const NOTHING: Schema = { type: "object", properties: {}, additionalProperties: false };

/** Levenshtein distance, for "did you mean": names are short. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

function unknownMessage(name: string, known: string[], what: "field" | "query parameter"): string {
  const close = known
    .map((k) => ({ k, d: k.startsWith(name) || name.startsWith(k) ? 1 : distance(name, k) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(x.k.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  const takes = known.length === 0 ? `this request takes no ${what}s` : `it takes ${known.slice(0, 25).join(", ")}${known.length > 25 ? ", ..." : ""}`;
  return `is not a ${what} of this request${close ? `; did you mean "${close.k}"?` : ""} (${takes})`;
}

/**
 * Every field of `value` that `schema` does not declare, at any depth, named the way zod names
 * fields (`outside_call.servce`, `calendar_ids.2`): one error each, with the closest known name.
 * Only closed objects (`additionalProperties: false`) are judged; records and free JSON
 * (evidence, metadata, a handoff's body) take any key.
 */
export function unknownFields(schema: z.ZodType | undefined, value: unknown, what: "field" | "query parameter" = "field"): FieldError[] {
  const root = schema ? jsonSchemaOf(schema) : NOTHING;
  const defs = root.$defs ?? {};
  const deref = (s: Schema): Schema => (s.$ref ? deref(defs[s.$ref.split("/").pop()!] ?? {}) : s);
  /** The concrete alternatives a schema allows (unions flattened). */
  const branches = (s: Schema): Schema[] => {
    const d = deref(s);
    const union = d.anyOf ?? d.oneOf ?? d.allOf;
    return union ? union.flatMap(branches) : [d];
  };
  const errors: FieldError[] = [];
  const walk = (v: unknown, schemas: Schema[], path: (string | number)[]) => {
    if (errors.length >= 20 || v === null || typeof v !== "object") return;
    const all = schemas.flatMap(branches);
    if (Array.isArray(v)) {
      const items = all.flatMap((s) => (s.items && !Array.isArray(s.items) ? [s.items] : []));
      if (items.length) v.forEach((x, i) => walk(x, items, [...path, i]));
      return;
    }
    const objects = all.filter((s) => s.properties || s.additionalProperties !== undefined);
    // Not an object this schema describes (free JSON, or a type the schema refuses anyway: zod says so).
    if (objects.length === 0) return;
    const open = objects.some((s) => s.additionalProperties !== false);
    const known = [...new Set(objects.flatMap((s) => Object.keys(s.properties ?? {})))];
    for (const [k, child] of Object.entries(v)) {
      const declared = objects.flatMap((s) => (s.properties?.[k] ? [s.properties[k]!] : []));
      if (declared.length) walk(child, declared, [...path, k]);
      else if (open) {
        const rest = objects.flatMap((s) => (s.additionalProperties && typeof s.additionalProperties === "object" ? [s.additionalProperties] : []));
        if (rest.length) walk(child, rest, [...path, k]);
      } else errors.push({ field: [...path, k].join("."), message: unknownMessage(k, known, path.length ? "field" : what) });
    }
  };
  walk(value, [root], []);
  return errors;
}
