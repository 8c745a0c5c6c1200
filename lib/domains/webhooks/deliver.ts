import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull, lte, lt, or, sql } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { executeFixed } from "../../../db/prepared";
import { webhookDeliveries, webhookEndpoints, webhookEvents, type WebhookDeliveryRow, type WebhookEndpointRow, type WebhookEventRow } from "../../../db/schema";
import { env } from "../../platform/config/env";
import { eventPayload } from "../../platform/events/payload";
import type { Actor } from "../../platform/actor";
import { checkDestination, isAllowlistedHost, parseAllowlist, type Allowlist, type Resolver } from "../../platform/outbound/ssrf-guard";
import { signedHeaders } from "./sign";
import { capturesOutbound } from "../../platform/config/preview";
import { CAPTURED_NOTE, recordCapture } from "../../platform/outbound/captures";
import { openSecret } from "./secret";
import { postPinned } from "./post-pinned";
import { parseRetryAfter, retryDelayMs } from "../../platform/outbound/retry-schedule";
import { disableEndpointInTx } from "./disable-endpoint";
import { jsonValue, rowFromJson } from "../../../db/row-json";
import { messagesInEvents, recordReadsBy } from "../taint";

/** An endpoint is disabled when every attempt to it has failed for this long... */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
/** ...or when this many deliveries in a row used up all their attempts. */
export const DISABLE_AFTER_EXHAUSTED = 5;
/**
 * A claim's lease outlasts the attempt's timeout (WEBHOOK_TIMEOUT_MS) by this much, time to
 * record the outcome: a live process never repeats an attempt. One whose process died is made
 * again once the lease ends (the engine wakes then).
 */
export const CLAIM_LEASE_MARGIN_MS = 10_000;
/** A previous secret stays valid this long after a rotation. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export type DeliverOptions = {
  /** The clock for scheduling (tests move it forward instead of sleeping). */
  now?: Date;
  limit?: number;
  timeoutMs?: number;
  allowlist?: Allowlist;
  resolver?: Resolver;
  random?: () => number;
  /** Only this workspace's deliveries (tests share one database). */
  workspaceId?: string;
};

type Outcome =
  | { kind: "succeeded"; status: number | null; latencyMs: number | null; captured?: true }
  | { kind: "gone"; status: number; latencyMs: number }
  | { kind: "failed"; status: number | null; error: string | null; latencyMs: number | null; retryAfterMs: number | null };

const SYSTEM_JOB = "webhooks.deliver";

/** The JSON body of an event's webhook, identical on every attempt. */
export function webhookBody(event: WebhookEventRow): string {
  return JSON.stringify(eventPayload(event));
}

/** The secrets to sign with, opened: the current one, and the previous one while its 24 hours last. */
export function signingSecrets(endpoint: WebhookEndpointRow, now: Date): string[] {
  const previous =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now ? [openSecret(endpoint.previousSecret)] : [];
  return [openSecret(endpoint.secret), ...previous];
}

/**
 * One unit of work: one attempt of one delivery (one event to one endpoint). Claims it with a
 * lease (a conditional UPDATE, so two runs never make the same attempt), sends it outside any
 * transaction, and records the outcome. At-least-once: a run that dies mid-attempt leaves a
 * lease that expires, and the attempt is made again. A failure to record the outcome (a poison
 * row) marks this delivery failed with the error; no other delivery is touched. Returns null
 * when there was nothing to do, else the outcome and when to try next (null: finished).
 */
export async function deliverWebhook(deliveryId: string, opts: DeliverOptions = {}): Promise<{ outcome: Outcome; retryAt: Date | null } | null> {
  const now = opts.now ?? new Date();
  const timeoutMs = opts.timeoutMs ?? env().WEBHOOK_TIMEOUT_MS;
  const claimed = await claim(deliveryId, now, timeoutMs);
  if (!claimed) return null;
  const { delivery: d, event, endpoint } = claimed;
  // The agent whose received mail this payload carries is handed its body: untrusted mail taints it (SPEC §13).
  if (event.agentId) await recordReadsBy({ type: "system", workspaceId: event.workspaceId, job: SYSTEM_JOB }, event.agentId, messagesInEvents([event]), "webhook");
  const allowlist = opts.allowlist ?? parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS);
  // Waits (Retry-After, the schedule) count from when the answer arrived, on the caller's clock:
  // an endpoint that took 10 s to say "retry after 30" is not asked again 20 s after it answered.
  const started = performance.now();
  const clock = () => new Date(now.getTime() + Math.ceil(performance.now() - started));
  const outcome = await attempt(endpoint, event, { now, clock, timeoutMs, allowlist, resolver: opts.resolver }).catch(
    (err): Outcome => ({ kind: "failed", status: null, error: `could not send: ${(err as Error).message}`, latencyMs: null, retryAfterMs: null }),
  );
  try {
    if (outcome.kind === "succeeded" && !endpoint.failingSince && !endpoint.consecutiveExhausted) {
      // The common case in one statement: a healthy endpoint answered 2xx (no endpoint row to touch).
      const log = attemptLog(now, outcome);
      await executeFixed(
        await queryable(),
        sql`update webhook_deliveries set status = 'succeeded', next_attempt_at = null, completed_at = ${now.toISOString()}::timestamptz,
          last_attempt_at = ${log.lastAttemptAt.toISOString()}::timestamptz, last_response_status = ${log.lastResponseStatus}::int,
          last_latency_ms = ${log.lastLatencyMs}::int, last_error = ${log.lastError}::text, lease_token = null, leased_until = null
          where id = ${d.id} and lease_token = ${d.leaseToken!}`,
      );
      return { outcome, retryAt: null };
    }
    const retryAt = await recordOutcome(d, endpoint, outcome, now, clock(), opts.random ?? Math.random);
    return { outcome, retryAt };
  } catch (err) {
    await markUnrecordable(d, err);
    return { outcome, retryAt: null };
  }
}

/**
 * Runs every delivery due now, concurrently (tests and the CLI; in the server each delivery is
 * its own run). `workspaceId` keeps to one workspace's deliveries (tests share one database).
 */
export async function deliverDueWebhooks(opts: DeliverOptions = {}): Promise<{ attempted: number; succeeded: number }> {
  const now = opts.now ?? new Date();
  const q = await queryable();
  const due = await q
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.nextAttemptAt, now),
        or(isNull(webhookDeliveries.leasedUntil), lt(webhookDeliveries.leasedUntil, now)),
        eq(webhookEndpoints.enabled, true),
        opts.workspaceId ? eq(webhookDeliveries.workspaceId, opts.workspaceId) : undefined,
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(opts.limit ?? 20);
  const results = await Promise.all(due.map((d) => deliverWebhook(d.id, { ...opts, now })));
  const attempted = results.filter((r) => r !== null);
  return { attempted: attempted.length, succeeded: attempted.filter((r) => r.outcome.kind === "succeeded").length };
}

/** Deliveries with an attempt to make, for the work registry: keyed by endpoint, due at their next attempt. */
export const pendingDeliveriesSource = () => sql`
  select d.id, d.workspace_id, d.endpoint_id as key, greatest(d.next_attempt_at, coalesce(d.leased_until, d.next_attempt_at)) as due_at
  from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
  where d.status = 'pending' and e.enabled`;

/**
 * Takes the lease on one due delivery and reads its event and endpoint, in one statement. Null
 * when it is not due, leased by another run, done, or its endpoint is disabled or gone.
 */
async function claim(id: string, now: Date, timeoutMs: number): Promise<{ delivery: WebhookDeliveryRow; event: WebhookEventRow; endpoint: WebhookEndpointRow } | null> {
  const q = await queryable();
  const nowIso = now.toISOString();
  // Longer than any attempt can take; if the run dies, the attempt is made again after it.
  const leasedUntil = new Date(now.getTime() + timeoutMs + CLAIM_LEASE_MARGIN_MS).toISOString();
  // One fixed text: a named prepared statement where the driver keeps them (db/prepared.ts).
  const { rows } = await executeFixed<{ d: Record<string, unknown>; e: Record<string, unknown>; ep: Record<string, unknown> }>(q, sql`
    with c as (
      update webhook_deliveries d
      set attempts = d.attempts + 1, lease_token = ${randomUUID()}, leased_until = ${leasedUntil}::timestamptz
      from webhook_endpoints ep
      where d.id = ${id} and d.status = 'pending' and d.next_attempt_at <= ${nowIso}::timestamptz
        and (d.leased_until is null or d.leased_until < ${nowIso}::timestamptz)
        and ep.id = d.endpoint_id and ep.enabled
      returning d.*
    )
    select row_to_json(c) as d, row_to_json(e) as e, row_to_json(ep) as ep
    from c join webhook_events e on e.id = c.event_id join webhook_endpoints ep on ep.id = c.endpoint_id`);
  const row = rows[0];
  if (!row) return null;
  return { delivery: rowFromJson(webhookDeliveries, jsonValue(row.d)), event: rowFromJson(webhookEvents, jsonValue(row.e)), endpoint: rowFromJson(webhookEndpoints, jsonValue(row.ep)) };
}

/** The outcome could not be written (a bug or a poison row): this delivery fails with the reason, alone. */
async function markUnrecordable(d: WebhookDeliveryRow, err: unknown) {
  const error = `could not record the outcome: ${(err as Error)?.message ?? String(err)}`.slice(0, 1000);
  console.error(`[webhooks] delivery ${d.id} failed for good: ${error}`);
  const q = await queryable();
  await q
    .update(webhookDeliveries)
    .set({ status: "failed", lastError: error, completedAt: new Date(), nextAttemptAt: null, leaseToken: null, leasedUntil: null })
    .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.leaseToken, d.leaseToken!)));
}

async function attempt(
  endpoint: WebhookEndpointRow,
  event: WebhookEventRow,
  o: { now: Date; clock: () => Date; timeoutMs: number; allowlist: Allowlist; resolver?: Resolver },
): Promise<Outcome> {
  const refuse = (error: string): Outcome => ({ kind: "failed", status: null, error, latencyMs: null, retryAfterMs: null });
  // A preview deployment's copy of production's endpoints: the delivery is recorded and shown, never sent.
  if (capturesOutbound("webhooks")) {
    await recordCapture({ workspaceId: event.workspaceId, kind: "webhooks", target: endpoint.url, summary: { endpoint_id: endpoint.id, event_id: event.id, type: event.type } });
    return { kind: "succeeded", status: null, latencyMs: null, captured: true };
  }
  const url = new URL(endpoint.url);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isAllowlistedHost(o.allowlist, url.hostname))) {
    return refuse("refused: plain http is only allowed to hosts on WEBHOOK_ALLOWED_HOSTS");
  }
  let address;
  try {
    address = await checkDestination(url, o.allowlist, o.resolver);
  } catch (err) {
    return refuse(`refused: ${(err as Error).message}`);
  }
  const body = webhookBody(event);
  // The signature's timestamp is the wall clock: receivers compare it with theirs.
  const headers = signedHeaders(signingSecrets(endpoint, o.now), event.id, Math.floor(Date.now() / 1000), body);
  const res = await postPinned(url, address, headers, body, o.timeoutMs);
  if (!res.ok) return { kind: "failed", status: null, error: res.error, latencyMs: res.latencyMs, retryAfterMs: null };
  if (res.status >= 200 && res.status < 300) return { kind: "succeeded", status: res.status, latencyMs: res.latencyMs };
  if (res.status === 410) return { kind: "gone", status: res.status, latencyMs: res.latencyMs };
  const retryAfter = res.status === 429 || res.status === 503 ? parseRetryAfter(headerValue(res.headers["retry-after"]), o.clock()) : null;
  const error = res.status >= 300 && res.status < 400 ? "redirects are not followed" : null;
  return { kind: "failed", status: res.status, error, latencyMs: res.latencyMs, retryAfterMs: retryAfter };
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** What every attempt writes to the delivery log, and the end of its lease. */
function attemptLog(now: Date, outcome: Outcome) {
  return {
    lastAttemptAt: now,
    lastResponseStatus: outcome.status,
    lastLatencyMs: outcome.latencyMs,
    lastError: outcome.kind === "failed" ? outcome.error : outcome.kind === "gone" ? "endpoint answered 410 Gone" : outcome.captured ? CAPTURED_NOTE : null,
    leaseToken: null,
    leasedUntil: null,
  };
}

/** Writes the attempt's outcome (and the endpoint's health) in one transaction; returns when to try next, or null. */
async function recordOutcome(d: WebhookDeliveryRow, endpoint: WebhookEndpointRow, outcome: Outcome, now: Date, answeredAt: Date, random: () => number): Promise<Date | null> {
  const system: Actor = { type: "system", workspaceId: d.workspaceId, job: SYSTEM_JOB };
  return transaction(async (tx) => {
    const log = attemptLog(now, outcome);
    let next: { status: "pending" | "succeeded" | "failed"; nextAttemptAt: Date | null; completedAt: Date | null };
    if (outcome.kind === "succeeded") next = { status: "succeeded", nextAttemptAt: null, completedAt: now };
    else if (outcome.kind === "gone") next = { status: "failed", nextAttemptAt: null, completedAt: now };
    else {
      const scheduled = retryDelayMs(d.attempts, random);
      const wait = scheduled === null ? null : (outcome.retryAfterMs ?? scheduled);
      next = wait === null ? { status: "failed", nextAttemptAt: null, completedAt: now } : { status: "pending", nextAttemptAt: new Date(answeredAt.getTime() + wait), completedAt: null };
    }
    const updated = await tx
      .update(webhookDeliveries)
      .set({ ...log, ...next })
      .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.leaseToken, d.leaseToken!)))
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return null; // the lease expired and another run took the delivery over
    if (outcome.kind === "succeeded") {
      // No lock on the endpoint unless it was failing: successes to one endpoint never queue on its row.
      if (endpoint.failingSince || endpoint.consecutiveExhausted) {
        await tx.update(webhookEndpoints).set({ failingSince: null, consecutiveExhausted: 0 }).where(eq(webhookEndpoints.id, endpoint.id));
      }
      return null;
    }
    const retryAt = next.nextAttemptAt;
    const [ep] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).for("update");
    if (!ep) return retryAt;
    const failingSince = ep.failingSince ?? now;
    const exhausted = ep.consecutiveExhausted + (next.status === "failed" ? 1 : 0);
    await tx.update(webhookEndpoints).set({ failingSince, consecutiveExhausted: exhausted }).where(eq(webhookEndpoints.id, ep.id));
    if (!ep.enabled) return retryAt;
    const reason =
      outcome.kind === "gone"
        ? "the endpoint answered 410 Gone"
        : now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS
          ? "every delivery attempt failed for 5 days"
          : exhausted >= DISABLE_AFTER_EXHAUSTED
            ? `${exhausted} deliveries in a row failed every attempt`
            : null;
    if (!reason) return retryAt;
    await disableEndpointInTx(tx, system, ep, reason, now);
    return null;
  });
}
