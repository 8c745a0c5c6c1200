import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { isSetupOpen } from "@/lib/auth/setup-status";
import { AuthShell, TextField } from "../_passkeys/auth-shell";
import { RegisterForm } from "../_passkeys/register-form";
import { beginSetup } from "./actions";

export const metadata: Metadata = { title: "Set up" };
export const dynamic = "force-dynamic";

export default async function SetupPage() {
  if (!(await isSetupOpen())) redirect("/sign-in");
  return (
    <AuthShell title="Create your workspace">
      <p className="mb-4 text-sm text-slate-700">
        First run: you become the workspace&apos;s owner. You sign in with a passkey (your device&apos;s screen lock or a security key), no password.
      </p>
      <RegisterForm begin={beginSetup} submit="Create workspace and passkey" redirectTo="/overview">
        <TextField label="Workspace name" name="workspaceName" autoComplete="organization" />
        <TextField label="Your name" name="name" autoComplete="name" />
        <TextField label="Email" name="email" type="email" autoComplete="email" />
      </RegisterForm>
    </AuthShell>
  );
}
