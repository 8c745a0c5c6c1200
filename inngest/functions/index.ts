import { inngest } from "../client";
import { enabledCrons, enabledKinds } from "../../lib/jobs/registry";
import { overdueWork } from "../../lib/jobs/sweep";
import { cancelEventName, fromEventData, toEventData, workEventName, type CronJob, type WorkEventData, type WorkKind } from "../../lib/jobs/work";

type Duration = `${number}s`;
const seconds = (ms: number): Duration => `${Math.max(1, Math.ceil(ms / 1000))}s`;

/**
 * One Inngest function per kind of work, built from the registry: triggered by the event sent
 * after commit, one item per run, concurrency keyed per workspace (and per endpoint or
 * connection), sleeping until the item is due (timers: a hold's expiry, an escalation), then
 * running the same lib function as the embedded engine. A retry is the kind's own schedule: a
 * new event due at `retryAt`. Holds' timers are cancelled when the hold settles or is extended.
 */
export function workFunction(kind: WorkKind) {
  return inngest.createFunction(
    {
      id: kind.name.replace(/\./g, "-"),
      triggers: [{ event: workEventName(kind.name) }],
      concurrency: kind.limits.perKey
        ? [
            { key: "event.data.workspace_id", limit: kind.limits.perWorkspace },
            { key: "event.data.key", limit: kind.limits.perKey },
          ]
        : [{ key: "event.data.workspace_id", limit: kind.limits.perWorkspace }],
      ...(kind.cancellable
        ? { cancelOn: [{ event: cancelEventName(kind.name), if: "async.data.id == event.data.id && async.data.keep_due_at != event.data.due_at" }] }
        : {}),
      ...(kind.debounceMs ? { debounce: { period: seconds(kind.debounceMs), timeout: seconds(kind.debounceMs * 10) } } : {}),
      timeouts: { finish: seconds(kind.limits.timeoutMs) },
      retries: 3,
    },
    async ({ event, step }) => {
      const item = fromEventData(event.data as WorkEventData);
      if (item.dueAt.getTime() > Date.now()) await step.sleepUntil("until-due", item.dueAt);
      const outcome = (await step.run("run", () => kind.run(item))) as { retryAt?: string | Date | null } | null | undefined;
      const retryAt = outcome?.retryAt ? new Date(outcome.retryAt) : null;
      if (retryAt) await step.sendEvent("run-again", { name: workEventName(kind.name), data: toEventData({ ...item, dueAt: retryAt }) });
      return outcome ?? null;
    },
  );
}

/** Housekeeping on a clock (every 15 minutes at most often). */
export function cronFunction(job: CronJob) {
  return inngest.createFunction({ id: job.name.replace(/\./g, "-"), triggers: [{ cron: job.cron }], concurrency: 1 }, async ({ step }) =>
    step.run(job.name, () => job.run()),
  );
}

/** Every 5 minutes: re-announces work overdue in the database (its event was lost). Finishes at once when there is none. */
export const sweepFunction = inngest.createFunction({ id: "sweep-overdue-work", triggers: [{ cron: "*/5 * * * *" }], concurrency: 1 }, async ({ step }) => {
  const events = await step.run("find-overdue", () => overdueWork(enabledKinds()));
  if (events.length) await step.sendEvent("announce", events);
  return { announced: events.length };
});

/** Every Inngest function this deployment serves at /api/inngest (Google's only when Google is configured). */
export function inngestFunctions() {
  return [...enabledKinds().map(workFunction), ...enabledCrons().map(cronFunction), sweepFunction];
}
