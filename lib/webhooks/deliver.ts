import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, lte, lt, or, sql } from "drizzle-orm";
import { queryable, transaction } from "../../db/transaction";
import { webhookDeliveries, webhookEndpoints, webhookEvents, type WebhookDeliveryRow, type WebhookEndpointRow, type WebhookEventRow } from "../../db/schema";
import { env } from "../config/env";
import type { Actor } from "../actor";
import { checkDestination, isAllowlistedHost, parseAllowlist, type Allowlist, type Resolver } from "./ssrf-guard";
import { signedHeaders } from "./sign";
import { postPinned } from "./post-pinned";
import { parseRetryAfter, retryDelayMs } from "./retry-schedule";
import { disableEndpointInTx } from "./disable-endpoint";

/** An endpoint is disabled when every attempt to it has failed for this long... */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
/** ...or when this many deliveries in a row used up all their attempts. */
export const DISABLE_AFTER_EXHAUSTED = 5;
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
  | { kind: "succeeded"; status: number; latencyMs: number }
  | { kind: "gone"; status: number; latencyMs: number }
  | { kind: "failed"; status: number | null; error: string | null; latencyMs: number | null; retryAfterMs: number | null };

const SYSTEM_JOB = "webhooks.deliver";

/** The JSON body of an event's webhook, identical on every attempt. */
export function webhookBody(event: WebhookEventRow): string {
  return JSON.stringify({
    type: event.type,
    id: event.id,
    created_at: event.createdAt.toISOString(),
    data: event.data,
    ...(event.traceId ? { trace_id: event.traceId } : {}),
  });
}

/** The secrets to sign with: the current one, and the previous one while its 24 hours last. */
export function signingSecrets(endpoint: WebhookEndpointRow, now: Date): string[] {
  const previous =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...previous];
}

/**
 * Claims due deliveries (a lease per row, taken with FOR UPDATE SKIP LOCKED, so two runners
 * never take the same attempt), sends them, and records each outcome. At-least-once: a
 * runner that dies mid-attempt leaves a lease that expires, and the attempt is made again.
 */
export async function deliverDueWebhooks(opts: DeliverOptions = {}): Promise<{ attempted: number; succeeded: number }> {
  const now = opts.now ?? new Date();
  const timeoutMs = opts.timeoutMs ?? env().WEBHOOK_TIMEOUT_MS;
  const claimed = await claimDue(now, opts.limit ?? 20, timeoutMs, opts.workspaceId);
  if (claimed.length === 0) return { attempted: 0, succeeded: 0 };

  const q = await queryable();
  const [events, endpoints] = await Promise.all([
    q.select().from(webhookEvents).where(inArray(webhookEvents.id, claimed.map((d) => d.eventId))),
    q.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, claimed.map((d) => d.endpointId))),
  ]);
  const allowlist = opts.allowlist ?? parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS);
  const outcomes = await Promise.all(
    claimed.map(async (d) => {
      const event = events.find((e) => e.id === d.eventId)!;
      const endpoint = endpoints.find((e) => e.id === d.endpointId)!;
      const outcome = await attempt(endpoint, event, { now, timeoutMs, allowlist, resolver: opts.resolver }).catch(
        (err): Outcome => ({ kind: "failed", status: null, error: `could not send: ${(err as Error).message}`, latencyMs: null, retryAfterMs: null }),
      );
      await recordOutcome(d, endpoint, outcome, now, opts.random ?? Math.random);
      return outcome;
    }),
  );
  return { attempted: claimed.length, succeeded: outcomes.filter((o) => o.kind === "succeeded").length };
}

async function claimDue(now: Date, limit: number, timeoutMs: number, workspaceId?: string): Promise<WebhookDeliveryRow[]> {
  return transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          eq(webhookDeliveries.status, "pending"),
          lte(webhookDeliveries.nextAttemptAt, now),
          or(isNull(webhookDeliveries.leasedUntil), lt(webhookDeliveries.leasedUntil, now)),
          eq(webhookEndpoints.enabled, true),
          workspaceId ? eq(webhookDeliveries.workspaceId, workspaceId) : undefined,
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit)
      .for("update", { of: webhookDeliveries, skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        leaseToken: randomUUID(),
        // Longer than any attempt can take; if the runner dies, the attempt is made again after it.
        leasedUntil: new Date(now.getTime() + timeoutMs + 30_000),
      })
      .where(inArray(webhookDeliveries.id, due.map((d) => d.id)))
      .returning();
  });
}

async function attempt(
  endpoint: WebhookEndpointRow,
  event: WebhookEventRow,
  o: { now: Date; timeoutMs: number; allowlist: Allowlist; resolver?: Resolver },
): Promise<Outcome> {
  const refuse = (error: string): Outcome => ({ kind: "failed", status: null, error, latencyMs: null, retryAfterMs: null });
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
  const retryAfter = res.status === 429 || res.status === 503 ? parseRetryAfter(headerValue(res.headers["retry-after"]), o.now) : null;
  const error = res.status >= 300 && res.status < 400 ? "redirects are not followed" : null;
  return { kind: "failed", status: res.status, error, latencyMs: res.latencyMs, retryAfterMs: retryAfter };
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

async function recordOutcome(d: WebhookDeliveryRow, endpoint: WebhookEndpointRow, outcome: Outcome, now: Date, random: () => number) {
  const system: Actor = { type: "system", workspaceId: d.workspaceId, job: SYSTEM_JOB };
  await transaction(async (tx) => {
    const log = {
      lastAttemptAt: now,
      lastResponseStatus: outcome.status,
      lastLatencyMs: outcome.latencyMs,
      lastError: outcome.kind === "failed" ? outcome.error : outcome.kind === "gone" ? "endpoint answered 410 Gone" : null,
      leaseToken: null,
      leasedUntil: null,
    };
    let next: { status: "pending" | "succeeded" | "failed"; nextAttemptAt: Date | null; completedAt: Date | null };
    if (outcome.kind === "succeeded") next = { status: "succeeded", nextAttemptAt: null, completedAt: now };
    else if (outcome.kind === "gone") next = { status: "failed", nextAttemptAt: null, completedAt: now };
    else {
      const scheduled = retryDelayMs(d.attempts, random);
      const wait = scheduled === null ? null : (outcome.retryAfterMs ?? scheduled);
      next = wait === null ? { status: "failed", nextAttemptAt: null, completedAt: now } : { status: "pending", nextAttemptAt: new Date(now.getTime() + wait), completedAt: null };
    }
    const updated = await tx
      .update(webhookDeliveries)
      .set({ ...log, ...next })
      .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.leaseToken, d.leaseToken!)))
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return null; // the lease expired and another runner took the delivery over

    const [ep] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).for("update");
    if (!ep) return null;
    if (outcome.kind === "succeeded") {
      if (ep.failingSince || ep.consecutiveExhausted) {
        await tx.update(webhookEndpoints).set({ failingSince: null, consecutiveExhausted: 0 }).where(eq(webhookEndpoints.id, ep.id));
      }
      return null;
    }
    const failingSince = ep.failingSince ?? now;
    const exhausted = ep.consecutiveExhausted + (next.status === "failed" ? 1 : 0);
    await tx.update(webhookEndpoints).set({ failingSince, consecutiveExhausted: exhausted }).where(eq(webhookEndpoints.id, ep.id));
    if (!ep.enabled) return null;
    const reason =
      outcome.kind === "gone"
        ? "the endpoint answered 410 Gone"
        : now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS
          ? "every delivery attempt failed for 5 days"
          : exhausted >= DISABLE_AFTER_EXHAUSTED
            ? `${exhausted} deliveries in a row failed every attempt`
            : null;
    if (!reason) return null;
    await disableEndpointInTx(tx, system, ep, reason, now);
    return reason;
  });
}
