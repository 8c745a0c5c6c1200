import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { memberActor } from "@/lib/domains/members/memberships";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { listEndpoints } from "@/lib/domains/webhooks/list-endpoints";
import { endpointHealth } from "@/lib/domains/webhooks/endpoint-health";
import { Badge, Card, Empty, PageHeader, Table, linkClass } from "../_components/ui";
import { CreateEndpointForm } from "./secret-forms";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const { member, workspace } = await requireMember();
  const actor = memberActor(member);
  const [endpoints, agents] = await Promise.all([listEndpoints(actor, { limit: 100 }), listAgents(workspace.id, { limit: 100 })]);
  const health = await endpointHealth(workspace.id, endpoints.items.map((e) => e.id));
  const names = new Map(agents.items.map((a) => [a.id, a.name]));
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Where this workspace's events are delivered, signed per Standard Webhooks. Agents without a public URL can stream the same events from GET /api/v1/events instead."
      />
      {hasRole(member.role, "admin") ? (
        <Card title="Add an endpoint" id="create-endpoint">
          <CreateEndpointForm agents={agents.items.map((a) => ({ id: a.id, name: a.name }))} />
        </Card>
      ) : null}
      <Card title="Endpoints" id="endpoints">
        {endpoints.items.length === 0 ? (
          <Empty>No webhook endpoints yet.</Empty>
        ) : (
          <Table caption="Webhook endpoints of this workspace" head={["Endpoint", "Events", "Agents", "Last 24 h", "Status"]}>
            {endpoints.items.map((e) => {
              const h = health.get(e.id);
              return (
                <tr key={e.id} data-testid={`endpoint-row-${e.id}`}>
                  <td className="max-w-xs py-2 pr-4">
                    <Link href={`/webhooks/${e.id}`} className={`${linkClass} break-all`}>
                      {e.url}
                    </Link>
                    {e.description ? <div className="text-xs text-slate-600">{e.description}</div> : null}
                  </td>
                  <td className="py-2 pr-4 text-xs">{e.eventTypes ? e.eventTypes.join(", ") : "all"}</td>
                  <td className="py-2 pr-4 text-xs">{e.agentIds ? e.agentIds.map((id) => names.get(id) ?? id).join(", ") : "all"}</td>
                  <td className="py-2 pr-4 text-xs">
                    {h ? `${h.succeeded} ok · ${h.failed} failed · ${h.pending} pending` : "none"}
                  </td>
                  <td className="py-2">{e.enabled ? <Badge tone="green">enabled</Badge> : <Badge tone="red">disabled</Badge>}</td>
                </tr>
              );
            })}
          </Table>
        )}
      </Card>
    </>
  );
}
