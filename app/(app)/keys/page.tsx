import type { Metadata } from "next";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { listKeys } from "@/lib/domains/api-keys/list-keys";
import { ActionForm } from "../_components/action-form";
import { Badge, Card, Empty, PageHeader, Table, dangerButtonClass } from "../_components/ui";
import { Time } from "../_components/time";
import { CreateKeyForm } from "./create-key-form";
import { revokeKeyAction } from "./actions";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage({ searchParams }: { searchParams: Promise<{ agent?: string }> }) {
  const { member, workspace } = await requireMember();
  const { agent } = await searchParams;
  const [all, agents] = await Promise.all([listKeys(workspace.id), listAgents(workspace.id, { limit: 100 })]);
  // A connected application (OAuth) holds a key whose secret nobody sees: listed apart.
  const keys = all.filter((k) => !k.oauthClientId);
  const apps = all.filter((k) => k.oauthClientId);
  const names = new Map(agents.items.map((a) => [a.id, a.name]));
  const canManage = hasRole(member.role, "admin");
  return (
    <>
      <PageHeader title="API keys" description="Bearer tokens for the /api/v1 API. A key is shown once when created; only its hash is stored." />
      {canManage ? (
        <Card title="Create an API key" id="create-key">
          <CreateKeyForm agents={agents.items.map((a) => ({ id: a.id, name: a.name }))} agentId={agent} />
        </Card>
      ) : null}
      <Card title="Connected applications" id="connected-applications">
        {apps.length === 0 ? (
          <Empty>No applications connected. An MCP client (Claude, ChatGPT, Cursor, VS Code) connects by the URL {"/api/mcp"} and asks an admin here to consent.</Empty>
        ) : (
          <Table caption="Applications connected through OAuth, each acting as one agent" head={["Application", "Agent", "Scopes", "Connected", "Last used", "Status", ...(canManage ? [""] : [])]}>
            {apps.map((k) => (
              <tr key={k.id} data-testid={`app-row-${k.id}`}>
                <td className="py-2 pr-4 text-sm text-slate-900">{k.name}</td>
                <td className="py-2 pr-4 text-xs">{k.agentId ? names.get(k.agentId) ?? k.agentId : null}</td>
                <td className="py-2 pr-4 text-xs">{k.scopes ? k.scopes.join(", ") : "all"}</td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={k.createdAt} />
                </td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={k.lastUsedAt} />
                </td>
                <td className="py-2 pr-4">{k.revokedAt ? <Badge tone="red">disconnected</Badge> : <Badge tone="green">connected</Badge>}</td>
                {canManage ? (
                  <td className="py-2">
                    {k.revokedAt ? null : (
                      <ActionForm action={revokeKeyAction} submit={<>Disconnect<span className="sr-only"> {k.name}</span></>} submitClassName={dangerButtonClass}>
                        <input type="hidden" name="key_id" value={k.id} />
                      </ActionForm>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Keys" id="keys">
        {keys.length === 0 ? (
          <Empty>No API keys yet.</Empty>
        ) : (
          <Table caption="API keys of this workspace" head={["Key", "Agent", "Scopes", "Created", "Last used", "Status", ...(canManage ? [""] : [])]}>
            {keys.map((k) => (
              <tr key={k.id} data-testid={`key-row-${k.id}`}>
                <td className="py-2 pr-4">
                  <code className="font-mono text-xs text-slate-900">{k.prefix}…</code>
                  {k.name ? <div className="text-xs text-slate-600">{k.name}</div> : null}
                </td>
                <td className="py-2 pr-4 text-xs">{k.agentId ? names.get(k.agentId) ?? k.agentId : <span className="text-slate-600">workspace</span>}</td>
                <td className="py-2 pr-4 text-xs">{k.scopes ? k.scopes.join(", ") : "all"}</td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={k.createdAt} />
                </td>
                <td className="py-2 pr-4 text-xs" data-testid="last-used">
                  <Time at={k.lastUsedAt} />
                </td>
                <td className="py-2 pr-4">{k.revokedAt ? <Badge tone="red">revoked</Badge> : <Badge tone="green">active</Badge>}</td>
                {canManage ? (
                  <td className="py-2">
                    {k.revokedAt ? null : (
                      <ActionForm action={revokeKeyAction} submit={<>Revoke<span className="sr-only"> key {k.prefix}</span></>} submitClassName={dangerButtonClass}>
                        <input type="hidden" name="key_id" value={k.id} />
                      </ActionForm>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}
