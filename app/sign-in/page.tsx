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
  AccessDenied: "That passkey is not allowed to sign in here.",
  Verification: "The passkey could not be verified. Try again.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ error?: string; next?: string }> }) {
  if (await isSetupOpen()) redirect("/setup");
  const { error, next } = await searchParams;
  if (await currentMember()) redirect(safeNext(next));
  return (
    <AuthShell title="Sign in">
      <p className="mb-4 text-sm text-slate-700">Use the passkey you created for AgentDraft. Your browser offers the ones it holds for this site.</p>
      {error ? (
        <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {ERRORS[error] ?? "Sign-in failed. Try again."}
        </p>
      ) : null}
      <SignInWithPasskey redirectTo={safeNext(next)} />
      <p className="mt-6 text-sm text-slate-600">
        New here? Members join by invitation: ask a workspace admin. <Link className="font-medium text-indigo-700 underline underline-offset-2" href="/">About AgentDraft</Link>
      </p>
    </AuthShell>
  );
}
