import type { Metadata } from "next";
import { publicOrigin } from "@/lib/platform/config/public-url";
import { requireMember } from "@/lib/domains/auth/current-member";
import { getSsoConnection } from "@/lib/domains/sso/connections";
import { listSsoDomains, MAX_SSO_DOMAINS, verificationRecordName, verificationRecordValue } from "@/lib/domains/sso/domains";
import { ActionForm } from "../../_components/action-form";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, secondaryButtonClass } from "../../_components/ui";
import { addSsoDomainAction, deleteSsoConnectionAction, removeSsoDomainAction, saveSsoConnectionAction, setSsoRequiredAction, verifySsoDomainAction } from "./actions";

export const metadata: Metadata = { title: "Single sign-on" };

// /settings/sso — admins set the workspace's OpenID Connect connection and the email domains it covers (docs/sso.md)
export default async function SsoSettingsPage() {
  const { workspace } = await requireMember("admin");
  const connection = await getSsoConnection(workspace.id);
  const domains = connection ? await listSsoDomains(workspace.id) : [];
  return (
    <>
      <PageHeader
        title="Single sign-on"
        description="People of your verified email domains sign in with your identity provider (OpenID Connect: Okta, Microsoft Entra ID, Google Workspace). Deciding approvals still needs a passkey."
      />
      <Card title="OpenID Connect connection" id="connection">
        <p className="mb-4 text-sm text-slate-700">
          Register AgentDraft in your identity provider as a web application with the redirect URI{" "}
          <code className="font-mono text-xs text-slate-900">{`${publicOrigin()}/sso/callback`}</code> and the scopes <code className="font-mono text-xs">openid email profile</code>, then paste its issuer, client id and secret here. The issuer is checked by loading its discovery document; the secret is stored encrypted.
        </p>
        <ActionForm action={saveSsoConnectionAction} submit={connection ? "Save connection" : "Add connection"} className="grid gap-4">
          <Field label="Issuer URL" name="sso-issuer" hint="Such as https://acme.okta.com, https://login.microsoftonline.com/<tenant id>/v2.0 or https://accounts.google.com">
            <input id="sso-issuer" name="issuer" type="url" required maxLength={500} defaultValue={connection?.issuer ?? ""} className={inputClass} />
          </Field>
          <Field label="Client id" name="sso-client-id">
            <input id="sso-client-id" name="client_id" required maxLength={500} defaultValue={connection?.clientId ?? ""} className={inputClass} />
          </Field>
          <Field label="Client secret" name="sso-client-secret" hint={connection ? "Leave blank to keep the stored secret." : undefined}>
            <input id="sso-client-secret" name="client_secret" type="password" required={!connection} maxLength={2000} autoComplete="off" className={inputClass} />
          </Field>
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="checkbox" name="just_in_time" defaultChecked={connection?.justInTime ?? false} className="mt-0.5 h-4 w-4" />
            <span>Add people of verified domains who are not members yet as viewers on their first sign-in (otherwise only members sign in; whom SCIM deprovisioned never comes back this way).</span>
          </label>
        </ActionForm>
        {connection ? (
          <div className="mt-4">
            <ActionForm action={deleteSsoConnectionAction} submit="Remove connection" submitClassName={dangerButtonClass} />
          </div>
        ) : null}
      </Card>
      {connection ? (
        <Card title="Email domains" id="domains">
          <p className="mb-4 text-sm text-slate-700">
            Add each email domain this connection signs in (at most {MAX_SSO_DOMAINS}) and prove it is yours with a DNS TXT record. Only verified domains route sign-ins, and only they can require SSO (their people then sign in only with SSO, and register or use a passkey only once signed in that way). A domain signs in to one workspace.
          </p>
          <ActionForm action={addSsoDomainAction} submit="Add domain" className="mb-6 grid gap-4 sm:grid-cols-[1fr_auto] sm:items-end">
            <Field label="Domain" name="sso-domain">
              <input id="sso-domain" name="name" required maxLength={253} placeholder="acme.com" className={inputClass} />
            </Field>
          </ActionForm>
          {domains.length === 0 ? (
            <Empty>No domains yet.</Empty>
          ) : (
            <Table caption="Email domains of this connection" head={["Domain", "TXT record", "Status", "Actions"]}>
              {domains.map((d) => (
                <tr key={d.id} data-testid={`sso-domain-row-${d.id}`}>
                  <td className="py-2 pr-4 font-medium text-slate-900">{d.name}</td>
                  <td className="py-2 pr-4 text-xs">
                    <code className="block break-all font-mono">{verificationRecordName(d.name)}</code>
                    <code className="block break-all font-mono text-slate-700">{verificationRecordValue(d.verificationToken)}</code>
                  </td>
                  <td className="py-2 pr-4">
                    {d.verifiedAt ? <Badge tone="green">verified</Badge> : <Badge tone="amber">not verified</Badge>} {d.requireSso ? <Badge tone="indigo">SSO required</Badge> : null}
                  </td>
                  <td className="space-y-2 py-2">
                    {d.verifiedAt ? (
                      <ActionForm action={setSsoRequiredAction} submit={<>{d.requireSso ? "Stop requiring SSO" : "Require SSO"}<span className="sr-only"> for {d.name}</span></>} submitClassName={secondaryButtonClass}>
                        <input type="hidden" name="domain_id" value={d.id} />
                        <input type="hidden" name="required" value={d.requireSso ? "false" : "true"} />
                      </ActionForm>
                    ) : (
                      <ActionForm action={verifySsoDomainAction} submit={<>Verify<span className="sr-only"> {d.name}</span></>} submitClassName={secondaryButtonClass}>
                        <input type="hidden" name="domain_id" value={d.id} />
                      </ActionForm>
                    )}
                    <ActionForm action={removeSsoDomainAction} submit={<>Remove<span className="sr-only"> {d.name}</span></>} submitClassName={dangerButtonClass}>
                      <input type="hidden" name="domain_id" value={d.id} />
                    </ActionForm>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Card>
      ) : null}
    </>
  );
}
