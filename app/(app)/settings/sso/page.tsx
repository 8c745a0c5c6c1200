import type { Metadata } from "next";
import { publicOrigin } from "@/lib/platform/config/public-url";
import { requireMember } from "@/lib/domains/auth/current-member";
import { getSsoConnection } from "@/lib/domains/sso/connections";
import { describeCertificate, NAMEID_EMAIL, samlAcsUrl, samlEntityId } from "@/lib/domains/sso/saml-metadata";
import { listSsoDomains, MAX_SSO_DOMAINS, verificationRecordName, verificationRecordValue } from "@/lib/domains/sso/domains";
import { ActionForm } from "../../_components/action-form";
import { Badge, Card, Empty, Field, PageHeader, Table, dangerButtonClass, inputClass, secondaryButtonClass } from "../../_components/ui";
import { addSsoDomainAction, deleteSsoConnectionAction, removeSsoDomainAction, saveSamlConnectionAction, saveSsoConnectionAction, setSsoRequiredAction, verifySsoDomainAction } from "./actions";

export const metadata: Metadata = { title: "Single sign-on" };

const code = "font-mono text-xs text-slate-900 break-all";

// /settings/sso — admins set the workspace's connection (OpenID Connect or SAML 2.0) and the email domains it covers (docs/sso.md)
export default async function SsoSettingsPage({ searchParams }: { searchParams: Promise<{ protocol?: string }> }) {
  const { workspace } = await requireMember("admin");
  const connection = await getSsoConnection(workspace.id);
  const domains = connection ? await listSsoDomains(workspace.id) : [];
  const asked = (await searchParams).protocol;
  const protocol = asked === "saml" || asked === "oidc" ? asked : (connection?.protocol ?? "oidc");
  const tab = (p: "oidc" | "saml", label: string) => (
    <a href={`/settings/sso?protocol=${p}#connection`} aria-current={protocol === p ? "page" : undefined} className={protocol === p ? "rounded-md bg-indigo-50 px-3 py-1.5 text-sm font-medium text-indigo-900" : "rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 underline underline-offset-2"}>
      {label}
    </a>
  );
  return (
    <>
      <PageHeader
        title="Single sign-on"
        description="People of your verified email domains sign in with your identity provider (OpenID Connect or SAML 2.0: Okta, Microsoft Entra ID, Google Workspace). Deciding approvals still needs a passkey."
      />
      <Card title="Connection" id="connection">
        <nav aria-label="Protocol" className="mb-4 flex gap-2">
          {tab("oidc", "OpenID Connect")}
          {tab("saml", "SAML 2.0")}
        </nav>
        {connection ? (
          <p className="mb-4 text-sm text-slate-700">
            This workspace signs in with <strong>{connection.protocol === "saml" ? "SAML 2.0" : "OpenID Connect"}</strong> ({connection.issuer}).
            {connection.protocol !== protocol ? " Saving this form replaces it; the email domains stay." : null}
          </p>
        ) : null}
        {protocol === "saml" ? (
          <>
            <p className="mb-2 text-sm text-slate-700">Register AgentDraft in your identity provider as a SAML application with these values, then give its metadata here (its URL, or the XML pasted). Assertions must be signed; the NameID is the person&apos;s email.</p>
            <dl className="mb-4 grid gap-2 text-sm sm:grid-cols-[max-content_1fr]">
              <dt className="font-medium text-slate-800">ACS URL (reply URL)</dt>
              <dd className="min-w-0"><code className={code}>{samlAcsUrl(workspace.id)}</code></dd>
              <dt className="font-medium text-slate-800">Entity ID (audience)</dt>
              <dd className="min-w-0"><code className={code}>{samlEntityId(workspace.id)}</code></dd>
              <dt className="font-medium text-slate-800">NameID format</dt>
              <dd className="min-w-0"><code className={code}>{NAMEID_EMAIL}</code></dd>
              <dt className="font-medium text-slate-800">SP metadata</dt>
              <dd className="min-w-0">
                <a href={samlEntityId(workspace.id)} className="break-all font-medium text-indigo-700 underline underline-offset-2">{samlEntityId(workspace.id)}</a>
              </dd>
            </dl>
            {connection?.protocol === "saml" ? (
              <div className="mb-4 text-sm text-slate-700">
                <p>
                  Identity provider <code className={code}>{connection.issuer}</code>, sign-in URL <code className={code}>{connection.samlSsoUrl}</code>.
                </p>
                <ul className="mt-1 list-disc pl-5">
                  {(connection.samlCertificates ?? []).map((pem) => {
                    const cert = describeCertificate(pem);
                    return (
                      <li key={cert.fingerprint}>
                        {cert.subject}, valid until {cert.validTo.toISOString().slice(0, 10)} <code className="break-all font-mono text-xs">SHA-256 {cert.fingerprint}</code>
                      </li>
                    );
                  })}
                </ul>
              </div>
            ) : null}
            <ActionForm action={saveSamlConnectionAction} submit={connection?.protocol === "saml" ? "Save SAML connection" : "Use SAML"} className="grid gap-4">
              <Field label="IdP metadata URL" name="saml-metadata-url" hint="Such as https://acme.okta.com/app/<id>/sso/saml/metadata or Entra ID's App Federation Metadata URL. Or paste the XML below.">
                <input id="saml-metadata-url" name="metadata_url" type="url" maxLength={2000} defaultValue={connection?.samlMetadataUrl ?? ""} className={inputClass} />
              </Field>
              <Field label="IdP metadata XML" name="saml-metadata-xml" hint={connection?.protocol === "saml" ? "Leave both blank to keep the stored metadata." : "Google Workspace: download the IdP metadata and paste it here."}>
                <textarea id="saml-metadata-xml" name="metadata_xml" rows={6} maxLength={200000} className={`${inputClass} font-mono text-xs`} />
              </Field>
              <label className="flex items-start gap-2 text-sm text-slate-800">
                <input type="checkbox" name="just_in_time" defaultChecked={connection?.justInTime ?? false} className="mt-0.5 h-4 w-4" />
                <span>Add people of verified domains who are not members yet as viewers on their first sign-in (otherwise only members sign in; whom SCIM deprovisioned never comes back this way).</span>
              </label>
              <label className="flex items-start gap-2 text-sm text-slate-800">
                <input type="checkbox" name="allow_idp_initiated" defaultChecked={connection?.samlAllowIdpInitiated ?? false} className="mt-0.5 h-4 w-4" />
                <span>Accept IdP-initiated sign-in (from the identity provider&apos;s app dashboard). Off by default: such responses answer no request of AgentDraft&apos;s, so only their one-time use protects them.</span>
              </label>
            </ActionForm>
          </>
        ) : (
          <>
        <p className="mb-4 text-sm text-slate-700">
          Register AgentDraft in your identity provider as a web application with the redirect URI{" "}
          <code className="font-mono text-xs text-slate-900">{`${publicOrigin()}/sso/callback`}</code> and the scopes <code className="font-mono text-xs">openid email profile</code>, then paste its issuer, client id and secret here. The issuer is checked by loading its discovery document; the secret is stored encrypted.
        </p>
        <ActionForm action={saveSsoConnectionAction} submit={connection?.protocol === "oidc" ? "Save connection" : "Use OpenID Connect"} className="grid gap-4">
          <Field label="Issuer URL" name="sso-issuer" hint="Such as https://acme.okta.com, https://login.microsoftonline.com/<tenant id>/v2.0 or https://accounts.google.com">
            <input id="sso-issuer" name="issuer" type="url" required maxLength={500} defaultValue={connection?.protocol === "oidc" ? connection.issuer : ""} className={inputClass} />
          </Field>
          <Field label="Client id" name="sso-client-id">
            <input id="sso-client-id" name="client_id" required maxLength={500} defaultValue={connection?.clientId ?? ""} className={inputClass} />
          </Field>
          <Field label="Client secret" name="sso-client-secret" hint={connection?.protocol === "oidc" ? "Leave blank to keep the stored secret." : undefined}>
            <input id="sso-client-secret" name="client_secret" type="password" required={connection?.protocol !== "oidc"} maxLength={2000} autoComplete="off" className={inputClass} />
          </Field>
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="checkbox" name="just_in_time" defaultChecked={connection?.justInTime ?? false} className="mt-0.5 h-4 w-4" />
            <span>Add people of verified domains who are not members yet as viewers on their first sign-in (otherwise only members sign in; whom SCIM deprovisioned never comes back this way).</span>
          </label>
        </ActionForm>
          </>
        )}
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
