import type { Client } from "openapi-fetch";
import type { paths } from "./schema.js";
import { AgentDraftError, unwrap } from "./errors.js";

type Json<P extends keyof paths, M extends "get" | "post", S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { "application/json": infer T } } };
}
  ? T
  : never;

export type HandoffEnvelope = Json<"/v1/handoffs", "post", 201>;
export type ClaimedHandoff = Json<"/v1/handoffs/{id}/claim", "post", 200>;
export type CompletedHandoff = Json<"/v1/handoffs/{id}/complete", "post", 200>;
export type NewHandoff = NonNullable<paths["/v1/handoffs"]["post"]["requestBody"]>["content"]["application/json"];
export type AgentNote = NonNullable<paths["/v1/audit/entries"]["post"]["requestBody"]>["content"]["application/json"];

/** Throw this from a work function to fail the handoff without a retry (it is dead at once). */
export class PermanentFailure extends Error {
  override name = "PermanentFailure";
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export type WorkContext<C> = {
  /** A client on the handoff's trace: calls made with it (mail, holds, notes) join the handoff's trace. */
  client: C;
  /** Aborted when the claim is lost (a heartbeat was refused): stop, another worker has it. */
  signal: AbortSignal;
};

export type WorkOptions = {
  /** How long a claim lives without a heartbeat (default 60 s); heartbeats go every third of it. */
  ttlSeconds?: number;
  /** A name for this worker, shown on the trace. */
  worker?: string;
  /** With a workspace-wide key: the agent whose handoffs to work. */
  agentId?: string;
  /** How long to wait when nothing is pending (default 1 s). */
  pollMs?: number;
  /** Stops the loop of work() once the current handoff is finished. */
  signal?: AbortSignal;
};

const SKIP = new Set(["handoff_claimed", "handoff_not_pending"]);
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Handoffs between agents (SPEC §16): send, and work the ones sent to your agent. `workOnce`
 * claims the oldest pending handoff of a type, runs `fn` while heartbeating the claim, then
 * completes it with what `fn` returned, or fails it with what it threw (retried while attempts
 * remain; a PermanentFailure is dead at once). `work` does that in a loop until `signal` aborts.
 */
export function handoffsApi<C extends Client<paths>, T>(client: C, onTrace: (traceId: string) => T) {
  async function claimNext(type: string, o: WorkOptions): Promise<ClaimedHandoff | null> {
    const page = unwrap(await client.GET("/v1/handoffs", { params: { query: { status: "pending", type, role: "received", agent_id: o.agentId, limit: 100 } } }));
    for (const h of [...page.data].reverse()) {
      const res = await client.POST("/v1/handoffs/{id}/claim", { params: { path: { id: h.id } }, body: { ttl_seconds: o.ttlSeconds ?? 60, worker: o.worker } });
      if (res.data) return res.data;
      const err = (res.error ?? {}) as { code?: string };
      if (!SKIP.has(err.code ?? "")) unwrap(res);
    }
    return null;
  }

  async function run<R>(h: ClaimedHandoff, fn: (h: ClaimedHandoff, ctx: WorkContext<T>) => Promise<R>, o: WorkOptions): Promise<{ handoff: ClaimedHandoff; result?: R; error?: unknown }> {
    const ttl = o.ttlSeconds ?? 60;
    const lost = new AbortController();
    const beat = setInterval(async () => {
      const res = await client.POST("/v1/handoffs/{id}/extend", { params: { path: { id: h.id } }, body: { claim_id: h.claim_id, ttl_seconds: ttl } }).catch(() => null);
      if (res?.error && (res.error as { code?: string }).code === "handoff_claim_lost") lost.abort();
    }, Math.max(250, (ttl * 1000) / 3));
    try {
      const result = await fn(h, { client: onTrace(h.trace_id), signal: lost.signal });
      if (lost.signal.aborted) return { handoff: h, error: new Error("the claim was lost while working") };
      unwrap(await client.POST("/v1/handoffs/{id}/complete", { params: { path: { id: h.id } }, body: { claim_id: h.claim_id, result: result ?? null } }));
      return { handoff: h, result };
    } catch (error) {
      if (error instanceof AgentDraftError && error.code === "handoff_claim_lost") return { handoff: h, error };
      if (!lost.signal.aborted) {
        const permanent = error instanceof PermanentFailure;
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000) || "failed";
        await client.POST("/v1/handoffs/{id}/fail", {
          params: { path: { id: h.id } },
          body: { claim_id: h.claim_id, error: message, retry: !permanent, details: permanent ? error.details : undefined },
        });
      }
      return { handoff: h, error };
    } finally {
      clearInterval(beat);
    }
  }

  return {
    /** Hands work to another agent; give an idempotencyKey (your task id) so a retry is the same handoff. */
    async send(input: NewHandoff, o: { idempotencyKey?: string } = {}): Promise<HandoffEnvelope> {
      return unwrap(await client.POST("/v1/handoffs", { body: input, headers: o.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {} }));
    },
    /** Claims and works one pending handoff of `type`; null when none waits. */
    async workOnce<R>(type: string, fn: (h: ClaimedHandoff, ctx: WorkContext<T>) => Promise<R>, o: WorkOptions = {}) {
      const h = await claimNext(type, o);
      return h ? run(h, fn, o) : null;
    },
    /** Works handoffs of `type` one after another until `signal` aborts. */
    async work<R>(type: string, fn: (h: ClaimedHandoff, ctx: WorkContext<T>) => Promise<R>, o: WorkOptions = {}): Promise<void> {
      while (!o.signal?.aborted) {
        const h = await claimNext(type, o);
        if (h) await run(h, fn, o);
        else await sleep(o.pollMs ?? 1000, o.signal);
      }
    },
  };
}

/** Agent notes: why the agent acted, in the audit trail. */
export function auditApi<C extends Client<paths>>(client: C) {
  return {
    async note(input: AgentNote) {
      return unwrap(await client.POST("/v1/audit/entries", { body: input }));
    },
  };
}
