import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { memberActor } from "@/lib/domains/members/memberships";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { AppError } from "@/lib/platform/errors";
import { findEndpoint } from "@/lib/domains/webhooks/find-endpoint";
import { listDeliveries } from "@/lib/domains/webhooks/list-deliveries";
import { DELIVERY_STATUSES, type DeliveryStatus } from "@/db/schema/webhook-deliveries";
import { ActionForm } from "../../_components/action-form";
import { Badge, Card, Empty, PageHeader, Table, dangerButtonClass, linkClass, secondaryButtonClass } from "../../_components/ui";
import { Time } from "../../_components/time";
import { deleteEndpointAction, retryDeliveryAction, retryFailedAction, sendTestEventAction, setEndpointEnabledAction, updateFiltersAction } from "../actions";
import { AgentChoices, EventTypeChoices, RotateSecretForm } from "../secret-forms";

export const metadata: Metadata = { title: "Webhook endpoint" };

const STATUS_TONE: Record<DeliveryStatus, "green" | "red" | "amber"> = { succeeded: "green", failed: "red", pending: "amber" };

export default async function EndpointPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ status?: string; starting_after?: string }> }) {
  const { member, workspace } = await requireMember();
  const { id } = await params;
  const query = await searchParams;
  const status = (DELIVERY_STATUSES as readonly string[]).includes(query.status ?? "") ? (query.status as DeliveryStatus) : undefined;
  const actor = memberActor(member);
  const endpoint = await findEndpoint(actor, id).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  const startingAfter = query.starting_after && /^whd_[0-9a-z]{26}$/.test(query.starting_after) ? query.starting_after : undefined;
  const [deliveries, agents] = await Promise.all([listDeliveries(actor, endpoint.id, { limit: 50, status, starting_after: startingAfter }), listAgents(workspace.id, { limit: 100 })]);
  const canManage = hasRole(member.role, "admin");
  const filterLink = (s?: string) => `/webhooks/${endpoint.id}${s ? `?status=${s}` : ""}`;
  return (
    <>
      <PageHeader title="Webhook endpoint" description={<span className="break-all font-mono text-xs">{endpoint.url}</span>}>
        <Link href="/webhooks" className={linkClass}>
          All endpoints
        </Link>
      </PageHeader>
      <Card title="Status" id="endpoint-status">
        <p className="mb-3 text-sm text-slate-800">
          {endpoint.enabled ? <Badge tone="green">enabled</Badge> : <Badge tone="red">disabled</Badge>}{" "}
          {endpoint.enabled ? null : <span className="text-slate-700">{endpoint.disabledReason} · <Time at={endpoint.disabledAt} /></span>}
          {endpoint.failingSince ? <span className="ml-2 text-red-800">failing since <Time at={endpoint.failingSince} /></span> : null}
        </p>
        {endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > new Date() ? (
          <p className="mb-3 text-xs text-slate-700">
            The previous secret signs too until <Time at={endpoint.previousSecretExpiresAt} />.
          </p>
        ) : null}
        {canManage ? (
          <div className="flex flex-wrap items-start gap-3">
            <ActionForm action={setEndpointEnabledAction} submit={endpoint.enabled ? "Disable" : "Enable"} submitClassName={endpoint.enabled ? dangerButtonClass : secondaryButtonClass}>
              <input type="hidden" name="endpoint_id" value={endpoint.id} />
              <input type="hidden" name="enabled" value={endpoint.enabled ? "false" : "true"} />
            </ActionForm>
            <ActionForm action={sendTestEventAction} submit="Send a test event" submitClassName={secondaryButtonClass}>
              <input type="hidden" name="endpoint_id" value={endpoint.id} />
            </ActionForm>
            <RotateSecretForm endpointId={endpoint.id} />
            <ActionForm action={deleteEndpointAction} submit="Delete endpoint" submitClassName={dangerButtonClass}>
              <input type="hidden" name="endpoint_id" value={endpoint.id} />
            </ActionForm>
          </div>
        ) : null}
      </Card>
      {canManage ? (
        <Card title="Filters" id="endpoint-filters">
          <ActionForm action={updateFiltersAction} submit="Save filters" className="grid gap-4 md:grid-cols-2">
            <input type="hidden" name="endpoint_id" value={endpoint.id} />
            <EventTypeChoices checked={endpoint.eventTypes} />
            <AgentChoices agents={agents.items.map((a) => ({ id: a.id, name: a.name }))} checked={endpoint.agentIds} />
          </ActionForm>
        </Card>
      ) : null}
      <Card title="Delivery log" id="deliveries">
        <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
          <nav aria-label="Filter deliveries" className="flex flex-wrap gap-3 text-sm">
            {[undefined, ...DELIVERY_STATUSES].map((s) => (
              <Link key={s ?? "all"} href={filterLink(s)} className={linkClass} aria-current={s === status ? "page" : undefined}>
                {s ?? "all"}
              </Link>
            ))}
          </nav>
          {canManage ? (
            <ActionForm action={retryFailedAction} submit="Retry all failed" submitClassName={secondaryButtonClass}>
              <input type="hidden" name="endpoint_id" value={endpoint.id} />
            </ActionForm>
          ) : null}
        </div>
        {deliveries.items.length === 0 ? (
          <Empty>No deliveries{status ? ` with status ${status}` : ""} in the last 30 days.</Empty>
        ) : (
          <Table caption="Deliveries to this endpoint, newest first" head={["Event", "Status", "Attempts", "Response", "Latency", "Last try", "Next try", ...(canManage ? [""] : [])]}>
            {deliveries.items.map((d) => (
              <tr key={d.id} data-testid={`delivery-row-${d.id}`}>
                <td className="py-2 pr-4 text-xs">
                  <code className="font-mono">{d.eventType}</code>
                  <div className="font-mono text-[11px] text-slate-600">{d.eventId}</div>
                </td>
                <td className="py-2 pr-4">
                  <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
                </td>
                <td className="py-2 pr-4 text-xs">{d.attempts}</td>
                <td className="py-2 pr-4 text-xs" data-testid="response-status">
                  {d.lastResponseStatus ?? (d.lastError ? <span title={d.lastError}>{d.lastError.slice(0, 40)}</span> : "—")}
                </td>
                <td className="py-2 pr-4 text-xs">{d.lastLatencyMs === null ? "—" : `${d.lastLatencyMs} ms`}</td>
                <td className="py-2 pr-4 text-xs">
                  <Time at={d.lastAttemptAt} />
                </td>
                <td className="py-2 pr-4 text-xs">{d.status === "pending" ? <Time at={d.nextAttemptAt} /> : "—"}</td>
                {canManage ? (
                  <td className="py-2">
                    <ActionForm action={retryDeliveryAction} submit={<>Retry<span className="sr-only"> delivery {d.id}</span></>} submitClassName={secondaryButtonClass}>
                      <input type="hidden" name="delivery_id" value={d.id} />
                    </ActionForm>
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
        {deliveries.hasMore ? (
          <p className="mt-3 text-sm">
            <Link className={linkClass} href={`/webhooks/${endpoint.id}?${status ? `status=${status}&` : ""}starting_after=${deliveries.items.at(-1)!.id}`}>
              Older deliveries →
            </Link>
          </p>
        ) : null}
      </Card>
    </>
  );
}
