import { afterCommit } from "../../../db/transaction";
import { scheduleWork } from "../jobs/schedule";
import { scheduleSeal } from "../audit/seal-chain";
import { actorId } from "../audit/append-audit";
import type { Actor } from "../actor";
import { announceEventsCommitted } from "./wake";

/** The job kind of one webhook delivery: the outbox schedules what an event's commit wrote (lib/domains/webhooks runs it). */
export const DELIVERY_KIND = "webhook.deliver";

/** A delivery as the database functions return it (agentdraft_emit). */
export type OutboxDelivery = { id: string; endpoint_id: string; due_at: string };

/**
 * After a state change made by one of the database's functions (the conflict engine's): the
 * deliveries its outbox events made, and its audit entries, are announced once it commits.
 */
export async function announceOutbox(workspaceId: string, deliveries: OutboxDelivery[], audited = true): Promise<void> {
  await Promise.all([
    scheduleWork(DELIVERY_KIND, deliveries.map((d) => ({ id: d.id, workspaceId, key: d.endpoint_id, dueAt: new Date(d.due_at) }))),
    audited ? scheduleSeal(workspaceId, new Date()) : undefined,
    afterCommit(() => announceEventsCommitted(workspaceId)),
  ]);
}

/** The actor as the database functions take it: who acts, for the audit entries and the outbox. */
export function actorJson(actor: Actor) {
  return {
    workspace_id: actor.workspaceId,
    type: actor.type,
    id: actorId(actor),
    agent_id: actor.type === "key" ? actor.agentId : null,
    trace_id: actor.traceId ?? null,
    request_id: actor.requestId ?? null,
  };
}
