import { AppError, type FieldError } from "../errors";

/**
 * One check for every text the API accepts, before any schema or query sees it (SPEC §10).
 * Postgres refuses NUL in text and jsonb, and unpaired UTF-16 surrogates cannot be encoded
 * as UTF-8: either would reach the database as a 500. Deep JSON would overflow the recursive
 * code after it (zod, canonical JSON for hashes). The walk is iterative and linear.
 */
export const INPUT_LIMITS = {
  /** Nesting of arrays and objects in a JSON body (evidence, metadata, custom headers...). */
  maxJsonDepth: 32,
  /** Characters of an object key. */
  maxKeyLength: 256,
  /** Characters of a query parameter value or a path segment. */
  maxParamLength: 1024,
  /** Characters of one web-app form field (each form's own schema is stricter). */
  maxFormValueLength: 10_000,
  /** Fields of one web-app form. */
  maxFormFields: 100,
} as const;

/** Why this text cannot be accepted, or null when it can. */
export function textProblem(text: string, maxLength?: number): string | null {
  if (text.includes("\u0000")) return "must not contain NUL (U+0000) characters";
  if (!text.isWellFormed()) return "must not contain unpaired UTF-16 surrogates (such as \\ud800)";
  if (maxLength !== undefined && text.length > maxLength) return `must be at most ${maxLength} characters`;
  return null;
}

const fieldName = (path: (string | number)[]) => path.map(String).join(".") || "(body)";

/**
 * Every bad string, key and nesting level of a parsed JSON value, one entry per field (at
 * most `maxErrors`). Paths are written like zod's (`evidence.items.2`).
 */
export function jsonProblems(value: unknown, root: (string | number)[] = [], maxErrors = 20): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length && errors.length < maxErrors) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) errors.push({ field: fieldName(path), message: problem });
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= INPUT_LIMITS.maxJsonDepth) {
      errors.push({ field: fieldName(path), message: `is nested more than ${INPUT_LIMITS.maxJsonDepth} levels deep` });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i], depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i]!;
      const keyProblem = textProblem(k, INPUT_LIMITS.maxKeyLength);
      if (keyProblem) {
        errors.push({ field: fieldName(path), message: `has a key that ${keyProblem}` });
        continue;
      }
      stack.push({ value: child, path: [...path, k], depth: depth + 1 });
    }
  }
  return errors;
}

/** Problems of query parameters (repeated keys are arrays), named by parameter. */
export function queryProblems(query: Record<string, string | string[]>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(query)) {
    const nameProblem = textProblem(name, INPUT_LIMITS.maxKeyLength);
    if (nameProblem) {
      errors.push({ field: "(query)", message: `has a parameter name that ${nameProblem}` });
      continue;
    }
    for (const v of [value].flat()) {
      const problem = textProblem(v, INPUT_LIMITS.maxParamLength);
      if (problem) {
        errors.push({ field: name, message: problem });
        break;
      }
    }
  }
  return errors;
}

/** Problems of a web-app form's fields (repeated names are arrays), named by field: the API's rules for text. */
export function formProblems(fields: Record<string, string | string[]>): FieldError[] {
  const names = Object.keys(fields);
  if (names.length > INPUT_LIMITS.maxFormFields) return [{ field: "form", message: `has more than ${INPUT_LIMITS.maxFormFields} fields` }];
  const errors: FieldError[] = [];
  for (const name of names) {
    const nameProblem = textProblem(name, INPUT_LIMITS.maxKeyLength);
    if (nameProblem) {
      errors.push({ field: "form", message: `has a field name that ${nameProblem}` });
      continue;
    }
    const values = [fields[name]!].flat();
    if (values.length > INPUT_LIMITS.maxFormFields) {
      errors.push({ field: name, message: `has more than ${INPUT_LIMITS.maxFormFields} values` });
      continue;
    }
    for (const v of values) {
      const problem = textProblem(v, INPUT_LIMITS.maxFormValueLength);
      if (problem) {
        errors.push({ field: name, message: problem });
        break;
      }
    }
  }
  return errors;
}

export function validationError(errors: FieldError[]): AppError {
  return new AppError("validation_failed", `${errors.length} field${errors.length === 1 ? " is" : "s are"} invalid: ${errors.map((e) => e.field).join(", ")}.`, { errors });
}

/** Throws 400 `validation_failed` naming each bad field of a JSON body. */
export function assertSafeJson(value: unknown, root: (string | number)[] = []): void {
  const errors = jsonProblems(value, root);
  if (errors.length) throw validationError(errors);
}

/** Throws 400 `validation_failed` naming each bad query parameter. */
export function assertSafeQuery(query: Record<string, string | string[]>): void {
  const errors = queryProblems(query);
  if (errors.length) throw validationError(errors);
}

/** The shape of every id we issue (`cal_` + 26 Crockford base32 characters). */
export const ID_SHAPE = /^[a-z]{2,10}_[0-9a-hjkmnp-tv-z]{26}$/;
/** The shape of an x-trace-id (lib/platform/api/request-ids.ts). */
export const TRACE_ID_SHAPE = /^[A-Za-z0-9._:\/-]{1,128}$/;

/**
 * Path parameters of /api/v1 are ids: anything not shaped like one names nothing, so it is
 * 404 before any query runs (no junk reaches the database).
 */
export function assertIdParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    // A trace is named by the caller's own x-trace-id, so its parameter has that header's shape.
    if (!(name === "trace_id" ? TRACE_ID_SHAPE : ID_SHAPE).test(value)) {
      throw new AppError("not_found", `No resource with ${name} ${JSON.stringify(value.slice(0, 64))}${value.length > 64 ? "..." : ""}: it is not shaped like an id.`);
    }
  }
}

/**
 * Replaces what Postgres cannot store (NUL, unpaired surrogates) in text taken from outside
 * the API (parsed mail): such text is not refused, it is made storable (U+FFFD).
 */
export function storableText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes("\u0000") ? wellFormed.replaceAll("\u0000", "\ufffd") : wellFormed;
}
