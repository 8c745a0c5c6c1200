import type { Metadata } from "next";
import { publicOrigin } from "@/lib/platform/config/public-url";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listScimTokens } from "@/lib/domains/scim/tokens";
import { scimOwnerGroupEnabled } from "@/lib/domains/scim/owner-group-switch";
import { ActionForm } from "../../_components/action-form";
import { Badge, Card, Empty, PageHeader, Table, dangerButtonClass, secondaryButtonClass } from "../../_components/ui";
import { Time } from "../../_components/time";
import { CreateScimTokenForm } from "./create-token-form";
import { revokeScimTokenAction, setScimOwnerGroupAction } from "./actions";

export const metadata: Metadata = { title: "SCIM provisioning" };

// /settings/scim — admins create and revoke the identity provider's SCIM tokens (docs/scim.md)
export default async function ScimSettingsPage() {
  const { workspace, member } = await requireMember("admin");
  const [tokens, ownerGroupOn] = await Promise.all([listScimTokens(workspace.id), scimOwnerGroupEnabled(workspace.id)]);
  return (
    <>
      <PageHeader
        title="SCIM provisioning"
        description="Your identity provider (Okta, Microsoft Entra ID) adds, updates and removes this workspace's people through SCIM 2.0. A token is shown once when created; only its hash is stored."
      />
      <Card title="Connect your identity provider" id="connect">
        <dl className="mb-4 grid gap-3 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-slate-600">SCIM base URL</dt>
            <dd>
              <code className="font-mono text-xs text-slate-900">{`${publicOrigin()}/scim/v2`}</code>
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Groups that set roles</dt>
            <dd className="text-slate-900">
              {ownerGroupOn ? (
                <>
                  <code className="font-mono text-xs">agentdraft-owner</code>,{" "}
                </>
              ) : null}
              <code className="font-mono text-xs">agentdraft-admin</code>, <code className="font-mono text-xs">agentdraft-approver</code>, <code className="font-mono text-xs">agentdraft-viewer</code>
            </dd>
          </div>
        </dl>
        <CreateScimTokenForm />
      </Card>
      <Card title="Let SCIM grant the owner role" id="owner-group">
        <p className="mb-3 text-sm text-slate-700">
          {ownerGroupOn ? <Badge tone="green">on</Badge> : <Badge tone="slate">off</Badge>}{" "}
          When on, members of the <code className="font-mono text-xs">agentdraft-owner</code> group become owners, and leaving it gives them the role of their other groups. A change that would leave the workspace
          without an owner is refused. Off, SCIM never changes an owner. Flipping it changes nobody&apos;s role.
        </p>
        {member.role === "owner" ? (
          <ActionForm action={setScimOwnerGroupAction} submit={ownerGroupOn ? "Turn off" : "Turn on"} submitClassName={secondaryButtonClass}>
            <input type="hidden" name="enabled" value={ownerGroupOn ? "false" : "true"} />
          </ActionForm>
        ) : (
          <p className="text-xs text-slate-600">Only an owner can turn this on or off.</p>
        )}
      </Card>
      <Card title="SCIM tokens" id="scim-tokens">
        {tokens.length === 0 ? (
          <Empty>No SCIM tokens yet.</Empty>
        ) : (
          <Table caption="SCIM tokens of this workspace" head={["Token", "Created", "Last used", "Status", ""]}>
            {tokens.map((t) => (
              <tr key={t.id} data-testid={`scim-token-row-${t.id}`}>
                <td className="py-2 pr-4">
                  <code className="font-mono text-xs text-slate-900">{t.prefix}…</code>
                  {t.name ? <div className="text-xs text-slate-600">{t.name}</div> : null}
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={t.createdAt} />
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={t.lastUsedAt} />
                </td>
                <td className="py-2 pr-4">{t.revokedAt ? <Badge tone="red">revoked</Badge> : <Badge tone="green">active</Badge>}</td>
                <td className="py-2">
                  {t.revokedAt ? null : (
                    <ActionForm action={revokeScimTokenAction} submit={<>Revoke<span className="sr-only"> SCIM token {t.prefix}</span></>} submitClassName={dangerButtonClass}>
                      <input type="hidden" name="token_id" value={t.id} />
                    </ActionForm>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}
