// The form side of server actions, without the session lookup (next-auth), so lib tests can run it.
import { ZodError, type z } from "zod";
import { AppError } from "../../platform/errors";
import { assertSafeJson, formProblems, validationError } from "../../platform/api/input-guards";
import { assertRole, type MemberRole } from "../members";
import type { SignedInMember } from "./current-member";

/** What every server action returns to its form. */
export type ActionState<T = undefined> =
  | { ok: true; message?: string; data?: T }
  | { ok: false; error: string; fieldErrors?: Record<string, string> }
  | null;

/**
 * A form's fields as a plain object (checkboxes and multi-selects with one name become arrays),
 * under the API's input guard: NUL, unpaired surrogates, over-long values or too many fields
 * are a 400 `validation_failed` naming each field, before any schema or query.
 */
export function formFields(form: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    if (key.startsWith("$ACTION")) continue;
    const all = form.getAll(key).filter((v): v is string => typeof v === "string");
    out[key] = all.length === 1 ? all[0]! : all;
  }
  const errors = formProblems(out);
  if (errors.length) throw validationError(errors);
  return out;
}

/** A server action's input, FormData or a value a client sent, through the same guard. */
function guardedInput(input: unknown): unknown {
  if (input instanceof FormData) return formFields(input);
  assertSafeJson(input);
  return input;
}

/** runMemberAction for a member already resolved (null: signed out); failures are thrown. */
export async function runForMember<S extends z.ZodType, T>(
  m: SignedInMember | null,
  atLeast: MemberRole,
  doing: string,
  schema: S,
  input: unknown,
  fn: (m: SignedInMember, data: z.output<S>) => Promise<ActionState<T>>,
): Promise<ActionState<T>> {
  const fields = guardedInput(input);
  if (!m) return { ok: false, error: "Your session has ended: sign in again." };
  assertRole(m.member.role, atLeast, doing);
  return fn(m, schema.parse(fields));
}

/** A refusal with its field errors, as one line for forms that show a single message. */
export function describeFieldErrors(err: AppError): string {
  const fields = err.extra.errors?.map((e) => `${e.field}: ${e.message}`) ?? [];
  return fields.length ? fields.join("; ") : err.message;
}

export function actionError(err: unknown): ActionState<never> {
  if (err instanceof ZodError) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of err.issues) fieldErrors[issue.path.join(".") || "form"] ??= issue.message;
    return { ok: false, error: "Some fields need attention.", fieldErrors };
  }
  if (err instanceof AppError && err.status < 500) {
    const fieldErrors = err.extra.errors ? Object.fromEntries(err.extra.errors.map((e) => [e.field, e.message])) : undefined;
    return { ok: false, error: err.message, fieldErrors };
  }
  // Next.js signals redirects and not-found by throwing: let those through.
  if (err && typeof err === "object" && "digest" in err) throw err;
  console.error("[action]", err);
  return { ok: false, error: "Something went wrong on our side. Try again." };
}
