import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { isSetupOpen } from "@/lib/domains/auth/setup-status";
import { setupToken } from "@/lib/domains/auth/setup-token";
import { AuthShell, TextField } from "../_passkeys/auth-shell";
import { RegisterForm } from "../_passkeys/register-form";
import { beginSetup } from "./actions";

export const metadata: Metadata = { title: "Set up" };
export const dynamic = "force-dynamic";

export default async function SetupPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  if (!(await isSetupOpen())) redirect("/sign-in");
  if (!setupToken()) {
    return (
      <AuthShell title="Setup is locked">
        <p className="text-sm text-slate-700" data-testid="setup-locked">
          This deployment has no setup token, so nobody can make themselves its owner from this page. The operator either sets{" "}
          <code>AGENTDRAFT_SETUP_TOKEN</code> and restarts, or invites the first owner from a shell:{" "}
          <code>npx agentdraft member invite --workspace ws_... --email you@example.com --role owner</code>.
        </p>
      </AuthShell>
    );
  }
  const { token } = await searchParams;
  return (
    <AuthShell title="Create your workspace">
      <p className="mb-4 text-sm text-slate-700">
        First run: you become the workspace&apos;s owner. You sign in with a passkey (your device&apos;s screen lock or a security key), no password. The setup
        token proves you run this server: <code>npm run dev</code> prints a link with it, in production it is <code>AGENTDRAFT_SETUP_TOKEN</code>.
      </p>
      <RegisterForm begin={beginSetup} submit="Create workspace and passkey" redirectTo="/overview">
        <TextField label="Setup token" name="setupToken" type="password" autoComplete="off" defaultValue={typeof token === "string" ? token : undefined} />
        <TextField label="Workspace name" name="workspaceName" autoComplete="organization" />
        <TextField label="Your name" name="name" autoComplete="name" />
        <TextField label="Email" name="email" type="email" autoComplete="email" />
      </RegisterForm>
    </AuthShell>
  );
}
