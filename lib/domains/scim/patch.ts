import { z } from "zod";
import { scimError } from "./errors";

/**
 * PATCH requests (RFC 7644 §3.5.2) as Okta and Entra ID send them: `op` in any case (Entra:
 * "Replace", "Add", "Remove"), with a path, or without one and a value object whose keys are
 * paths (Entra also sends dotted keys such as "name.givenName" there).
 */
export type PatchOp = { op: "add" | "replace" | "remove"; path: string | null; value: unknown };

export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const MAX_OPERATIONS = 100;
const OPS: PatchOp["op"][] = ["add", "replace", "remove"];
/** Attribute paths of the core schemas may carry their URN (`urn:…:core:2.0:User:userName`). */
export const CORE_URN = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;
/** An attribute path we may not store but understand the shape of: `title`, `emails[type eq "work"].value`, an extension's attribute. */
const PATH_SHAPE = /^(urn:[A-Za-z0-9:._-]+:)?[A-Za-z$][A-Za-z0-9$_-]*(\[[^\]]{1,200}\])?(\.[A-Za-z$][A-Za-z0-9$_-]*)?$/;

const patchBody = z.object({
  schemas: z.array(z.string().max(200)).max(10).optional(),
  Operations: z
    .array(z.object({ op: z.string().max(20), path: z.string().max(500).nullish(), value: z.unknown().optional() }))
    .min(1, "a PATCH needs at least one operation")
    .max(MAX_OPERATIONS, `at most ${MAX_OPERATIONS} operations in one PATCH`),
});

export function parsePatch(body: unknown): PatchOp[] {
  // Some clients spell the member "operations".
  const raw = body && typeof body === "object" && !("Operations" in body) && "operations" in body ? { ...body, Operations: (body as { operations: unknown }).operations } : body;
  const parsed = patchBody.safeParse(raw);
  if (!parsed.success) {
    throw scimError(400, "invalidSyntax", `A PATCH body is {"schemas": ["${PATCH_SCHEMA}"], "Operations": [{"op": "add" | "replace" | "remove", "path": …, "value": …}]}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.`);
  }
  return parsed.data.Operations.map((o) => {
    const op = o.op.toLowerCase() as PatchOp["op"];
    if (!OPS.includes(op)) throw scimError(400, "invalidSyntax", `Unknown PATCH op "${o.op}": use add, replace or remove.`);
    const path = o.path?.trim() ? o.path.trim().replace(CORE_URN, "") : null;
    if (path !== null && !PATH_SHAPE.test(path)) throw scimError(400, "invalidPath", `"${o.path}" is not an attribute path.`);
    if (op === "remove" && path === null) throw scimError(400, "noTarget", "A remove operation needs a path.");
    if (op !== "remove" && o.value === undefined) throw scimError(400, "invalidValue", `The ${op} operation${path ? ` on ${path}` : ""} needs a value.`);
    return { op, path, value: o.value };
  });
}

/** A SCIM boolean: true/false, or Entra ID's "True"/"False". */
export function scimBoolean(value: unknown, attr: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  throw scimError(400, "invalidValue", `${attr} is a boolean (true or false).`);
}

/** A string attribute within its limit; empty or null clears it when `nullable`. */
export function scimString(value: unknown, attr: string, max: number, nullable: boolean): string | null {
  if ((value === null || value === "") && nullable) return null;
  if (typeof value !== "string" || value.trim() === "") throw scimError(400, "invalidValue", `${attr} is a non-empty string.`);
  if (value.length > max) throw scimError(400, "invalidValue", `${attr} is longer than ${max} characters.`);
  return value.trim();
}

/** A path-less value object's entries, each as if it were a path (extension objects flattened one level: `urn:…:User` → its keys ignored unless known). */
export function valueEntries(op: PatchOp): [string, unknown][] {
  if (!op.value || typeof op.value !== "object" || Array.isArray(op.value)) {
    throw scimError(400, "invalidValue", `A ${op.op} without a path needs an object of attributes as its value.`);
  }
  return Object.entries(op.value as Record<string, unknown>).map(([k, v]) => [k.replace(CORE_URN, ""), v]);
}
