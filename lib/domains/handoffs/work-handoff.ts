import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { handoffs, type HandoffRow } from "../../../db/schema";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { AppError, notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { cancelWork } from "../../platform/jobs/schedule";
import { HANDOFF_CLAIM_EXPIRY_KIND, HANDOFF_EXPIRY_KIND, scheduleHandoffTimers } from "./handoff-clock";

type Json = Record<string, unknown>;
type Refusal = { code: "not_found" | "forbidden" | "handoff_claimed" | "handoff_not_pending" | "handoff_claim_lost"; handoff?: Json };

function refuse(e: Refusal, id: string): never {
  if (e.code === "not_found") throw notFound("handoff", id);
  if (e.code === "forbidden") throw new AppError("forbidden", "Only the recipient agent works on a handoff; the sender reads it and waits for handoff.completed.");
  const h = e.handoff ? rowFromJson(handoffs, e.handoff) : undefined;
  const state = h ? { status: h.status, attempt: h.attempt, max_attempts: h.maxAttempts } : {};
  if (e.code === "handoff_claimed") throw new AppError("handoff_claimed", `Handoff ${id} is claimed by another worker until ${h?.claimExpiresAt?.toISOString()}.`, state);
  if (e.code === "handoff_not_pending") throw new AppError("handoff_not_pending", `Handoff ${id} is ${h?.status}${h?.status === "pending" ? " with no attempts left" : ""}: nothing to claim.`, state);
  throw new AppError("handoff_claim_lost", `This claim on handoff ${id} is no longer live (it lapsed, was retaken, or the handoff ended).`, state);
}

/**
 * Claims a handoff for one worker of its recipient (agentdraft_claim_handoff): of many concurrent
 * claims exactly one wins; a lapsed claim is retaken with attempt + 1. Returns the handoff, its body and the claim id.
 */
export async function claimHandoff(actor: Actor, id: string, ttlSeconds: number, worker?: string): Promise<{ handoff: HandoffRow; body: unknown }> {
  const q = await queryable();
  type Claimed = { handoff?: Json; body?: unknown; deliveries: OutboxDelivery[]; error?: Refusal };
  const { rows } = await q.execute<{ out: Claimed | string }>(sql`
    select agentdraft_claim_handoff(${JSON.stringify(actorJson(actor))}::jsonb, ${id}, ${ttlSeconds}::int, ${worker ?? null}) as out`);
  const out = jsonValue<Claimed>(rows[0]!.out);
  // A lapsed claim settled on the way (dead, or pending again) is announced whether or not this claim won.
  await announceOutbox(actor.workspaceId, out.deliveries);
  if (out.error) refuse(out.error, id);
  const handoff = rowFromJson(handoffs, out.handoff!);
  await scheduleHandoffTimers(handoff);
  return { handoff, body: out.body };
}

type FinishAction =
  | { action: "complete"; result?: unknown }
  | { action: "fail"; error: string; details?: Record<string, unknown>; retry: boolean }
  | { action: "extend"; ttlSeconds: number };

/**
 * What the worker holding a live claim does, in one statement (agentdraft_finish_handoff):
 * complete (the result goes to the sender), fail (retried while attempts remain, else dead), or extend (heartbeat).
 */
export async function finishHandoff(actor: Actor, id: string, claimId: string, a: FinishAction): Promise<HandoffRow> {
  const q = await queryable();
  type Finished = { handoff?: Json; deliveries?: OutboxDelivery[]; changed?: boolean; error?: Refusal };
  const error = a.action === "fail" ? { message: a.error, ...(a.details ? { details: a.details } : {}) } : null;
  const { rows } = await q.execute<{ out: Finished | string }>(sql`
    select agentdraft_finish_handoff(${JSON.stringify(actorJson(actor))}::jsonb, ${id}, ${claimId}, ${a.action},
      ${a.action === "complete" ? JSON.stringify(a.result ?? null) : null}::jsonb, ${error ? JSON.stringify(error) : null}::jsonb,
      ${a.action === "fail" ? a.retry : null}::boolean, ${a.action === "extend" ? a.ttlSeconds : null}::int) as out`);
  const out = jsonValue<Finished>(rows[0]!.out);
  if (out.error) refuse(out.error, id);
  const handoff = rowFromJson(handoffs, out.handoff!);
  if (out.changed) {
    const ended = handoff.status !== "pending" && handoff.status !== "claimed";
    await Promise.all([
      announceOutbox(actor.workspaceId, out.deliveries ?? [], a.action !== "extend"),
      // A heartbeat moves the lapse timer: the old one is cancelled, the new one kept.
      a.action === "extend" ? cancelWork(HANDOFF_CLAIM_EXPIRY_KIND, [id], handoff.claimExpiresAt ?? undefined) : undefined,
      a.action === "extend" ? scheduleHandoffTimers({ ...handoff, expiresAt: null }) : undefined,
      ended ? cancelWork(HANDOFF_EXPIRY_KIND, [id]) : undefined,
      handoff.status !== "claimed" ? cancelWork(HANDOFF_CLAIM_EXPIRY_KIND, [id]) : undefined,
    ]);
  }
  return handoff;
}
