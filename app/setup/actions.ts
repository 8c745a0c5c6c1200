"use server";

import { ZodError } from "zod";
import { isSetupOpen } from "@/lib/domains/auth/setup-status";
import { isSetupToken } from "@/lib/domains/auth/setup-token";
import { setupIntent } from "@/lib/domains/auth/registration";
import { saveRegistrationIntent } from "@/lib/domains/auth/intent-cookie";
import { describeFieldErrors, formFields } from "@/lib/domains/auth/member-action";
import { AppError } from "@/lib/platform/errors";

/**
 * First run, step one: checks the form and remembers it for the passkey ceremony that follows.
 * Grants nothing: the account and workspace are created when the passkey is registered.
 */
export async function beginSetup(form: FormData): Promise<{ ok: true; email: string } | { ok: false; error: string }> {
  try {
    if (!(await isSetupOpen())) return { ok: false, error: "This AgentDraft is already set up. Sign in, or ask an owner for an invitation." };
    const intent = setupIntent.parse({ ...formFields(form), kind: "setup" });
    if (!isSetupToken(intent.setupToken)) {
      return { ok: false, error: "The setup token is not right. It is printed when the server starts (npm run dev), or set as AGENTDRAFT_SETUP_TOKEN." };
    }
    await saveRegistrationIntent(intent);
    return { ok: true, email: intent.email };
  } catch (err) {
    if (err instanceof ZodError) return { ok: false, error: err.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
    if (err instanceof AppError && err.status < 500) return { ok: false, error: describeFieldErrors(err) };
    console.error("[setup]", err);
    return { ok: false, error: "Something went wrong on our side. Try again." };
  }
}
