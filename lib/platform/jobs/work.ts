import type { SQL } from "drizzle-orm";

/** One item of background work: a row of some table, due at a time. */
export type WorkItem = {
  id: string;
  /** The tenant it belongs to: concurrency and fairness are per workspace. */
  workspaceId: string;
  /** A narrower concurrency key inside the kind (a webhook endpoint, a Google connection). */
  key?: string | null;
  dueAt: Date;
};

/** What a run says about its item: done, or to be run again at `retryAt` (its own retry schedule). */
export type WorkOutcome = { retryAt?: Date | null; [detail: string]: unknown } | void;

/**
 * A kind of background work, defined once: trigger, limits and handler. The embedded engine
 * (lib/platform/jobs/engine.ts) and Inngest (inngest/functions) are two drivers of the same registry.
 * `run` handles exactly one item; it is idempotent (it claims the row itself, so a duplicate
 * run of the same item does nothing), catches and records its own failures, and never touches
 * another item. `source` is the SQL that lists every item that still has work, as rows of
 * (id, workspace_id, key, due_at): the database is the source of truth, events only say "look now".
 */
export type WorkKind = {
  name: string;
  source: () => SQL;
  run: (item: WorkItem) => Promise<WorkOutcome>;
  limits: {
    /** At most this many runs of this kind at once for one workspace. */
    perWorkspace: number;
    /** At most this many at once for one `key` (e.g. one webhook endpoint). */
    perKey?: number;
    /** A run still going after this long is abandoned by the engine (its claim lets it be retried). */
    timeoutMs: number;
  };
  /** Coalesce a burst of schedules of the same item into one run, this long after the first. */
  debounceMs?: number;
  /** Runs of an item are cancelled when it is rescheduled or settled (holds: extend, commit, release). */
  cancellable?: boolean;
  /** Whether this kind runs in this deployment (Google kinds only when Google is configured). */
  enabled?: () => boolean;
  /**
   * What the docs say of it (docs/background-work.md's table is generated from this registry;
   * lib/composition/docs/generated-docs.test.ts fails when a kind of WORK_KINDS has none).
   */
  doc?: {
    /** What one run does. */
    run: string;
    /** What makes an item due. */
    due: string;
    /** What `key` is, when the kind has a per-key limit. */
    key?: string;
    /** In words, what `enabled` checks. */
    only?: string;
  };
};

/** A periodic job: housekeeping only (purges, channel renewal), never per-item work. */
export type CronJob = {
  name: string;
  /** For Inngest. Never more often than every 5 minutes. */
  cron: string;
  /** For the embedded engine: the same period. */
  everyMs: number;
  run: () => Promise<unknown>;
  enabled?: () => boolean;
  /**
   * Must run on its clock even when nothing happens (Google's push channels expire). Other jobs only
   * clear up after activity, so on Inngest they run from the sweeps that activity arms, once per
   * period at most, and an idle deployment runs none of them.
   */
  whileIdle?: boolean;
  /** What it does, for the docs (docs/background-work.md). */
  doc?: string;
};

/** The event that runs a housekeeping job (Inngest), sent by a sweep once per period (its id names the period). */
export const housekeepingEventName = (job: string) => `agentdraft/housekeeping.${job}`;

/** The event that triggers one run of a kind (Inngest). */
export const workEventName = (kind: string) => `agentdraft/${kind}`;
/** The event that cancels sleeping runs of a cancellable kind (Inngest). */
export const cancelEventName = (kind: string) => `agentdraft/${kind}.cancel`;

/** An item as event data (snake_case, JSON). */
export type WorkEventData = { id: string; workspace_id: string; key: string; due_at: string };

/** `key` is "" when there is none (Inngest's concurrency keys are string expressions). */
export function toEventData(item: WorkItem): WorkEventData {
  return { id: item.id, workspace_id: item.workspaceId, key: item.key ?? "", due_at: item.dueAt.toISOString() };
}

export function fromEventData(d: WorkEventData): WorkItem {
  return { id: d.id, workspaceId: d.workspace_id, key: d.key || null, dueAt: new Date(d.due_at) };
}

/** An event as sent to Inngest: `ts` in the future makes Inngest start the run then; `id` deduplicates a resend (24 h). */
export type InngestEvent = { id?: string; name: string; data: Record<string, unknown>; ts?: number };

/**
 * The event that announces one item: due in the future, it carries the due time as `ts`, so
 * Inngest starts the run when the item is due (no run sleeps waiting for it). Its id names the
 * item and its due time, so the same schedule sent twice (the request, then the sweeper) is one run.
 */
export function workEvent(kind: string, item: WorkItem, now = Date.now()): InngestEvent & { data: WorkEventData } {
  const due = item.dueAt.getTime();
  return { id: `${kind}:${item.id}:${due}`, name: workEventName(kind), data: toEventData(item), ...(due > now ? { ts: eventTs(due, now) } : {}) };
}

/**
 * Inngest delays a run by at most 7 days on its free plan (a year on paid ones): an item due
 * later is announced for 6 days from now, and its run, started early, announces it again
 * (`startedEarly`), a hop every 6 days until it is due.
 */
export const MAX_EVENT_DELAY_MS = 6 * 24 * 3600 * 1000;
export const eventTs = (due: number, now = Date.now()) => Math.min(due, now + MAX_EVENT_DELAY_MS);

/** Whether a run was started before its item is due (its event's `ts` was capped): it should hop, not run. */
export const startedEarly = (item: WorkItem, eventTsMs: number | undefined) => eventTsMs !== undefined && item.dueAt.getTime() > eventTsMs + 1000;
