"use server";

import { z, ZodError } from "zod";
import { redirect } from "next/navigation";
import { invitationIntent, acceptInvitation } from "@/lib/domains/auth/registration";
import { saveRegistrationIntent } from "@/lib/domains/auth/intent-cookie";
import { cookies } from "next/headers";
import { currentUser, WORKSPACE_COOKIE } from "@/lib/domains/auth/current-member";
import { appCookieOptions, YEAR_SECONDS } from "@/lib/domains/auth/cookie-options";
import { describeFieldErrors, formFields } from "@/lib/domains/auth/member-action";
import { findInvitationByToken, invitationState } from "@/lib/domains/invitations/find-invitation";
import { ssoRequiredForEmail } from "@/lib/domains/sso";
import { AppError } from "@/lib/platform/errors";

/**
 * Accepting an invitation without an account, step one: checks the link and remembers it for
 * the passkey ceremony. The account and membership are created when the passkey is registered.
 */
export async function beginInvitationAcceptance(form: FormData): Promise<{ ok: true; email: string } | { ok: false; error: string }> {
  try {
    const intent = invitationIntent.parse({ ...formFields(form), kind: "invitation" });
    const found = await findInvitationByToken(intent.token);
    if (!found || invitationState(found.invitation) !== "pending") return { ok: false, error: "This invitation is no longer valid." };
    // The passkey would be refused (sso-gate.ts): the page offers SSO instead, this says so to a form left open.
    if (await ssoRequiredForEmail(found.invitation.email)) return { ok: false, error: "Your organisation now requires single sign-on for this email: reload this page and sign in with SSO." };
    await saveRegistrationIntent(intent);
    return { ok: true, email: found.invitation.email };
  } catch (err) {
    if (err instanceof ZodError) return { ok: false, error: err.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
    if (err instanceof AppError && err.status < 500) return { ok: false, error: describeFieldErrors(err) };
    console.error("[invite]", err);
    return { ok: false, error: "Something went wrong on our side. Try again." };
  }
}

/** A signed-in person accepts an invitation addressed to their email. */
export async function acceptSignedIn(form: FormData): Promise<void> {
  const { token } = z.object({ token: z.string().min(10).max(200) }).parse(formFields(form));
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  let workspaceId: string;
  try {
    workspaceId = (await acceptInvitation(token, user)).workspaceId;
  } catch (err) {
    if (err instanceof AppError) redirect(`/invite/${encodeURIComponent(token)}?error=${encodeURIComponent(err.message)}`);
    throw err;
  }
  // Show the workspace just joined.
  (await cookies()).set(WORKSPACE_COOKIE, workspaceId, appCookieOptions(YEAR_SECONDS));
  redirect("/overview");
}
