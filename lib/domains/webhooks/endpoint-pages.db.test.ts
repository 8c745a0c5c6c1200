import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { newAgent, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { auditEntries, webhookDeliveries, webhookEvents } from "../../../db/schema";
import { transaction } from "../../../db/transaction";
import { sealAuditChain } from "../../platform/audit/seal-chain";
import { emitEvent } from "../../platform/events/emit-event";
import { readEvents } from "../events/read-events";
import { createEndpoint } from "./create-endpoint";
import { endpointHealth } from "./endpoint-health";
import { retryFailedDeliveries } from "./retry-failed";
import { sendTestEvent, TEST_EVENT_TYPE } from "./send-test-event";
import { updateEndpoint } from "./update-endpoint";

setTestEnv({ JOB_RUNNER: "off" });

async function setup() {
  const { workspace } = await newWorkspace();
  const { member, actor } = await newMember(workspace.id, "admin");
  const agent = await newAgent(workspace.id);
  const endpoint = await createEndpoint(actor, { url: "https://hooks.example.com/a" });
  const other = await createEndpoint(actor, { url: "https://hooks.example.com/b" });
  return { workspace, member, actor, agent, endpoint, other };
}

async function auditOf(workspaceId: string, action: string) {
  await sealAuditChain();
  const db = await getDb();
  return db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspaceId), eq(auditEntries.action, action)));
}

describe("what the webhook pages do", () => {
  it("retries every failed delivery of one endpoint, and no other's, audited with the member", async () => {
    const { workspace, member, actor, agent, endpoint, other } = await setup();
    for (let i = 0; i < 3; i++) await transaction((tx) => emitEvent(tx, actor, { type: "hold.created", agentId: agent.id, data: { i } }));
    const db = await getDb();
    await db.update(webhookDeliveries).set({ status: "failed", nextAttemptAt: null, completedAt: new Date() }).where(eq(webhookDeliveries.workspaceId, workspace.id));
    const health = await endpointHealth(workspace.id, [endpoint.id, other.id]);
    expect(health.get(endpoint.id)).toEqual({ succeeded: 0, failed: 3, pending: 0 });

    expect(await retryFailedDeliveries(actor, endpoint.id)).toEqual({ retried: 3 });
    const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.workspaceId, workspace.id));
    expect(rows.filter((r) => r.endpointId === endpoint.id).map((r) => r.status)).toEqual(["pending", "pending", "pending"]);
    expect(rows.filter((r) => r.endpointId === other.id).map((r) => r.status)).toEqual(["failed", "failed", "failed"]);
    const [entry] = await auditOf(workspace.id, "webhook_endpoint.failed_retried");
    expect(entry).toMatchObject({ actorType: "member", actorId: member.id, resourceId: endpoint.id, summary: { deliveries: 3 } });

    await updateEndpoint(actor, other.id, { enabled: false });
    await expect(retryFailedDeliveries(actor, other.id)).rejects.toMatchObject({ code: "conflict" });
  });

  it("sends a test event to one endpoint only, never on the event stream", async () => {
    const { workspace, member, actor, endpoint, other } = await setup();
    const filter = { workspaceId: workspace.id, agentId: null, types: ["hold.created" as const] };
    const start = (await readEvents(filter, null)).next;
    const { eventId, deliveryId } = await sendTestEvent(actor, endpoint.id);
    const db = await getDb();
    const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
    expect(deliveries.map((d) => [d.id, d.endpointId, d.eventType, d.status])).toEqual([[deliveryId, endpoint.id, TEST_EVENT_TYPE, "pending"]]);
    const [event] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
    expect(event!.fannedOutAt).not.toBeNull(); // the fan-out sweeper leaves it alone
    expect((await readEvents({ ...filter, types: ["hold.created", "approval.requested"] }, start)).events).toEqual([]);
    const [entry] = await auditOf(workspace.id, "webhook_endpoint.test_sent");
    expect(entry).toMatchObject({ actorType: "member", actorId: member.id, resourceId: endpoint.id });
    expect(other.id).not.toBe(endpoint.id);
  });
});
