import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { isRecentlyAuthenticated, listPasskeys } from "@/lib/domains/passkeys/passkeys";
import { currentSessionToken } from "@/lib/domains/auth/session-token";
import { AddPasskey, ConfirmWithPasskey } from "../../_passkeys/passkey-button";
import { ActionForm } from "../_components/action-form";
import { hasRole } from "@/lib/domains/members/roles";
import { Badge, Card, Field, PageHeader, Table, dangerButtonClass, focusRing, inputClass, secondaryButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { proveEmailAction, removePasskeyAction, renameWorkspaceAction, requestEmailProofAction, signOutEverywhereAction } from "./actions";
import { isEmailProven } from "@/lib/domains/members/email-proof";
import { configuredTransport } from "@/lib/domains/mail/send-mail";
import { PreemptFloorCard } from "./preempt-floor-card";
import { ApprovalLimitsCard } from "./approval-limits-card";
import { TimeZoneCard } from "./time-zone-card";
import { TaintSettingsCard } from "./taint-card";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const { user, member, workspace } = await requireMember();
  const passkeys = await listPasskeys(user.id);
  const confirmed = await isRecentlyAuthenticated(user.id, await currentSessionToken());
  const emailProven = await isEmailProven(user.id);
  const canMailCode = configuredTransport() !== null;
  return (
    <>
      <PageHeader title="Settings" description="Your workspace, your account and your passkeys." />
      <Card title="Workspace" id="workspace">
        <dl className="grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-slate-600">Name</dt>
            <dd className="font-medium text-slate-900">{workspace.name}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Id</dt>
            <dd>
              <code className="font-mono text-xs text-slate-900">{workspace.id}</code>
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Created</dt>
            <dd className="text-slate-900">
              <Time at={workspace.createdAt} />
            </dd>
          </div>
        </dl>
        {hasRole(member.role, "owner") ? (
          <ActionForm action={renameWorkspaceAction} submit="Rename" submitClassName={secondaryButtonClass} className="mt-4 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
            <Field label="Workspace name" name="workspace-name">
              <input id="workspace-name" name="name" required maxLength={100} defaultValue={workspace.name} className={inputClass} />
            </Field>
          </ActionForm>
        ) : null}
      </Card>
      <PreemptFloorCard member={member} workspace={workspace} />
      <ApprovalLimitsCard member={member} workspace={workspace} />
      <TaintSettingsCard member={member} workspace={workspace} />
      {hasRole(member.role, "admin") ? (
        <Card title="SCIM provisioning" id="scim">
          <p className="text-sm text-slate-700">
            Let Okta or Microsoft Entra ID add and remove this workspace&apos;s people, and set their roles by group.{" "}
            <Link href="/settings/scim" className={`font-medium text-indigo-700 underline ${focusRing}`}>
              Manage SCIM tokens
            </Link>
          </p>
        </Card>
      ) : null}
      {hasRole(member.role, "admin") ? (
        <Card title="Single sign-on (SSO)" id="sso">
          <p className="text-sm text-slate-700">
            Let your people sign in with Okta, Microsoft Entra ID or Google Workspace (OpenID Connect), and require it for your email domains.{" "}
            <Link href="/settings/sso" className={`font-medium text-indigo-700 underline ${focusRing}`}>
              Manage SSO
            </Link>
          </p>
        </Card>
      ) : null}
      <TimeZoneCard />
      <Card title="Your account" id="account">
        <dl className="grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-slate-600">Name</dt>
            <dd className="font-medium text-slate-900">{user.name ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Email</dt>
            <dd className="text-slate-900" data-testid="my-email">
              {user.email} {emailProven ? <Badge tone="green">proven</Badge> : <Badge tone="amber">unproven</Badge>}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Role</dt>
            <dd>
              <Badge>{member.role}</Badge>
            </dd>
          </div>
        </dl>
        {emailProven ? null : (
          <div className="mt-4 text-sm text-slate-700" data-testid="email-proof">
            {canMailCode ? (
              <>
                <p className="mb-3">Nobody has proven that this address is yours yet (your invitation was not sent through a mail provider). Prove it with a code mailed to it.</p>
                <ActionForm action={requestEmailProofAction} submit="Mail me a code" submitClassName={secondaryButtonClass} />
                <ActionForm action={proveEmailAction} submit="Prove" className="mt-3 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
                  <Field label="Code from the mail" name="email-code">
                    <input id="email-code" name="code" required inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} className={inputClass} />
                  </Field>
                </ActionForm>
              </>
            ) : (
              <p>
                This address is unproven: mail here is only captured (no mail provider), and admins can read captured mail, so neither an invitation link nor a code could show that
                the address is yours. Once an operator configures a mail provider, you can prove it here with a code.
              </p>
            )}
          </div>
        )}
      </Card>
      <Card title="Passkeys" id="passkeys">
        <p className="mb-4 text-sm text-slate-700">
          Passkeys are how you sign in. Keep at least two (say, your laptop and your phone) so losing one device does not lock you out. The last one cannot be removed.
        </p>
        <Table caption="Your passkeys" head={["Passkey", "Kind", "Added", ""]}>
          {passkeys.map((p, i) => (
            <tr key={p.credentialID}>
              <td className="py-2 pr-4">
                Passkey {i + 1} <code className="font-mono text-xs text-slate-600">{p.credentialID.slice(0, 10)}…</code>
              </td>
              <td className="py-2 pr-4 text-xs">{p.credentialDeviceType === "multiDevice" ? "synced" : "this device only"}</td>
              <td className="py-2 pr-4 text-xs">
                <Time at={p.createdAt} />
              </td>
              <td className="py-2">
                {passkeys.length > 1 ? (
                  <ActionForm action={removePasskeyAction} submit={<>Remove<span className="sr-only"> passkey {i + 1}</span></>} submitClassName={dangerButtonClass}>
                    <input type="hidden" name="credential_id" value={p.credentialID} />
                  </ActionForm>
                ) : (
                  <span className="text-xs text-slate-600">your only passkey</span>
                )}
              </td>
            </tr>
          ))}
        </Table>
        <div className="mt-4" data-testid="passkey-changes">
          {passkeys.length === 0 ? (
            <>
              <p className="mb-3 text-sm text-slate-700">You signed in with single sign-on and have no passkey yet. Add one: deciding approvals needs it.</p>
              <AddPasskey />
            </>
          ) : confirmed ? (
            <AddPasskey />
          ) : (
            <>
              <p className="mb-3 text-sm text-slate-700">Adding or removing a passkey needs a confirmation with one of your passkeys in the last 5 minutes.</p>
              <ConfirmWithPasskey />
            </>
          )}
        </div>
      </Card>
      <Card title="Sessions" id="sessions">
        <p className="mb-3 text-sm text-slate-700">Signs you out on every device and browser, this one included.</p>
        <ActionForm action={signOutEverywhereAction} submit="Sign out everywhere" submitClassName={dangerButtonClass} />
      </Card>
    </>
  );
}
