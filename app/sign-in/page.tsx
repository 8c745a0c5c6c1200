import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { isSetupOpen } from "@/lib/domains/auth/setup-status";
import { currentMember } from "@/lib/domains/auth/current-member";
import { safeNext } from "@/lib/domains/auth/safe-next";
import { AuthShell } from "../_passkeys/auth-shell";
import { SignInWithPasskey } from "../_passkeys/passkey-button";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  AccessDenied: "That passkey is not allowed to sign in here. If your organisation requires single sign-on for your email domain, use Sign in with SSO below.",
  Verification: "The passkey could not be verified. Try again.",
};

/** Why an SSO sign-in was refused (lib/domains/sso/refusal.ts, SsoRefusalReason): a code in the URL, the text here. */
const SSO_ERRORS: Record<string, string> = {
  invalid_email: "Enter your work email address to sign in with SSO.",
  no_connection: "No workspace signs in your email domain with SSO. Sign in with your passkey, or ask your admin.",
  rate_limited: "Too many SSO sign-ins were started just now. Try again in a minute.",
  unavailable: "Your identity provider could not be reached. Try again, or ask your admin to check the SSO connection.",
  expired: "That SSO sign-in expired, was already used, or was started in another browser. Start again.",
  failed: "Your identity provider's answer could not be verified. Start again, or ask your admin to check the SSO connection.",
  email_not_covered: "Your identity provider signed you in with an email that is not on a verified domain of this workspace's SSO connection.",
  not_member: "You are not a member of this workspace yet. Ask an admin to invite you, or to provision you from your identity provider.",
  unsolicited: "Your identity provider sent a sign-in AgentDraft did not ask for. Start here, with Sign in with SSO.",
  replayed: "That SSO sign-in was already used. Start again.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ error?: string; sso_error?: string; next?: string }> }) {
  if (await isSetupOpen()) redirect("/setup");
  const { error, sso_error: ssoError, next } = await searchParams;
  if (await currentMember()) redirect(safeNext(next));
  return (
    <AuthShell title="Sign in">
      <p className="mb-4 text-sm text-slate-700">Use the passkey you created for AgentDraft. Your browser offers the ones it holds for this site.</p>
      {error ? (
        <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {ERRORS[error] ?? "Sign-in failed. Try again."}
        </p>
      ) : null}
      {ssoError ? (
        <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {SSO_ERRORS[ssoError] ?? "SSO sign-in failed. Try again."}
        </p>
      ) : null}
      <SignInWithPasskey redirectTo={safeNext(next)} />
      <form action="/sso/start" method="get" className="mt-6 border-t border-slate-200 pt-6">
        <label htmlFor="sso-email" className="block text-sm font-medium text-slate-900">
          Or sign in with your organisation (SSO)
        </label>
        <div className="mt-2 flex flex-wrap gap-2">
          <input id="sso-email" name="email" type="email" required maxLength={254} autoComplete="email" placeholder="you@company.com" className="block min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-500" />
          <input type="hidden" name="next" value={safeNext(next)} />
          <button type="submit" className="inline-flex items-center justify-center rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600">
            Sign in with SSO
          </button>
        </div>
      </form>
      <p className="mt-6 text-sm text-slate-600">
        New here? Members join by invitation: ask a workspace admin. <Link className="font-medium text-indigo-700 underline underline-offset-2" href="/">About AgentDraft</Link>
      </p>
    </AuthShell>
  );
}
