import { ZodError, type z } from "zod";
import { AppError } from "../errors";
import { assertRole, type MemberRole } from "../members/roles";
import { currentMember, type SignedInMember } from "./current-member";

/** What every server action returns to its form. */
export type ActionState<T = undefined> =
  | { ok: true; message?: string; data?: T }
  | { ok: false; error: string; fieldErrors?: Record<string, string> }
  | null;

/** A form's fields as a plain object (checkboxes and multi-selects with one name become arrays). */
export function formFields(form: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    if (key.startsWith("$ACTION")) continue;
    const all = form.getAll(key).filter((v): v is string => typeof v === "string");
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/**
 * Runs a server action for a signed-in member: checks the role, validates the form with
 * `schema`, calls `fn`, and turns failures into a message for the form (never a stack).
 * Every exported server action goes through this.
 */
export async function runMemberAction<S extends z.ZodType, T>(
  atLeast: MemberRole,
  doing: string,
  schema: S,
  input: unknown,
  fn: (m: SignedInMember, data: z.output<S>) => Promise<ActionState<T>>,
): Promise<ActionState<T>> {
  try {
    const m = await currentMember();
    if (!m) return { ok: false, error: "Your session has ended: sign in again." };
    assertRole(m.member.role, atLeast, doing);
    const data = schema.parse(input instanceof FormData ? formFields(input) : input);
    return await fn(m, data);
  } catch (err) {
    return actionError(err);
  }
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
