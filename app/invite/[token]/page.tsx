import type { Metadata } from "next";
import Link from "next/link";
import { currentUser } from "@/lib/domains/auth/current-member";
import { findInvitationByToken, invitationState } from "@/lib/domains/invitations/find-invitation";
import { accountExists } from "@/lib/domains/auth/account-exists";
import { ssoRouteForEmail } from "@/lib/domains/sso/domains";
import { AuthShell, TextField } from "../../_passkeys/auth-shell";
import { RegisterForm } from "../../_passkeys/register-form";
import { passkeyButtonClass } from "../../_passkeys/styles";
import { acceptSignedIn, beginInvitationAcceptance } from "./actions";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

const link = "font-medium text-indigo-700 underline underline-offset-2 hover:text-indigo-900";

export default async function InvitationPage({ params, searchParams }: { params: Promise<{ token: string }>; searchParams: Promise<{ error?: string }> }) {
  const { token } = await params;
  const { error } = await searchParams;
  const found = await findInvitationByToken(token);
  const state = found ? invitationState(found.invitation) : null;
  if (!found || state !== "pending") {
    return (
      <AuthShell title="Invitation not valid">
        <p className="text-sm text-slate-700">
          {state === "accepted" ? "This invitation was already used." : state === "expired" ? "This invitation has expired." : "This invitation link is not valid or was revoked."} Ask the
          person who invited you for a new one.
        </p>
        <p className="mt-4 text-sm">
          <Link className={link} href="/sign-in">
            Sign in
          </Link>
        </p>
      </AuthShell>
    );
  }
  const { invitation, workspaceName } = found;
  const user = await currentUser();
  const intro = (
    <p className="mb-4 text-sm text-slate-700">
      You are invited to join <strong className="font-semibold text-slate-900">{workspaceName}</strong> as <strong className="font-semibold text-slate-900">{invitation.role}</strong>.
    </p>
  );
  const errorBox = error ? (
    <p role="alert" className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
      {error}
    </p>
  ) : null;

  if (user) {
    return (
      <AuthShell title={`Join ${workspaceName}`}>
        {intro}
        {errorBox}
        {user.email.toLowerCase() === invitation.email ? (
          <form action={acceptSignedIn}>
            <input type="hidden" name="token" value={token} />
            <button type="submit" className={passkeyButtonClass}>
              Accept invitation
            </button>
          </form>
        ) : (
          <p className="text-sm text-slate-700">
            This invitation is for {invitation.email}, but you are signed in as {user.email}. Sign out, then open the link again.
          </p>
        )}
      </AuthShell>
    );
  }
  // A domain that requires SSO registers no passkey from a link: the person signs in with their identity provider.
  const sso = await ssoRouteForEmail(invitation.email);
  if (sso?.domain.requireSso) {
    // Signing in to the inviting workspace's own connection accepts the invitation; another workspace's (it holds the domain) only signs the person in.
    const here = sso.connection.workspaceId === invitation.workspaceId;
    return (
      <AuthShell title={`Join ${workspaceName}`}>
        {intro}
        {errorBox}
        <p className="mb-4 text-sm text-slate-700">
          Your organisation signs in {invitation.email.split("@")[1]} with single sign-on, so you join with your organisation&apos;s account, not a passkey created here.{" "}
          {here ? "Signing in accepts this invitation." : "Sign in, then open this link again to accept it."} You add a passkey for approvals afterwards.
        </p>
        <form action="/sso/start" method="get">
          <input type="hidden" name="email" value={invitation.email} />
          <input type="hidden" name="next" value="/overview" />
          <button type="submit" className={`${passkeyButtonClass} max-w-full break-all`}>
            Sign in with SSO as {invitation.email}
          </button>
        </form>
      </AuthShell>
    );
  }
  if (await accountExists(invitation.email)) {
    return (
      <AuthShell title={`Join ${workspaceName}`}>
        {intro}
        <p className="text-sm text-slate-700">
          {invitation.email} already has an AgentDraft account.{" "}
          <Link className={link} href="/sign-in">
            Sign in
          </Link>{" "}
          with its passkey, then open this link again to accept.
        </p>
      </AuthShell>
    );
  }
  return (
    <AuthShell title={`Join ${workspaceName}`}>
      {intro}
      {errorBox}
      <RegisterForm begin={beginInvitationAcceptance} submit="Accept and create a passkey" redirectTo="/overview">
        <input type="hidden" name="token" value={token} />
        <TextField label="Email" name="email" type="email" defaultValue={invitation.email} readOnly />
        <TextField label="Your name" name="name" autoComplete="name" />
      </RegisterForm>
    </AuthShell>
  );
}
