import { inngest } from "../client";
import { enabledCrons, enabledKinds } from "../../lib/composition/job-kinds";
import { runItem } from "../../lib/platform/jobs/run-item";
import { housekeepingEvents, nextSweep, overdueWork, SWEEP_EVENT } from "../../lib/platform/jobs/sweep";
import { cancelEventName, fromEventData, housekeepingEventName, startedEarly, workEvent, workEventName, type CronJob, type WorkEventData, type WorkKind } from "../../lib/platform/jobs/work";

type Duration = `${number}s`;
const seconds = (ms: number): Duration => `${Math.max(1, Math.ceil(ms / 1000))}s`;

/**
 * One Inngest function per kind of work, built from the registry: triggered by the event sent
 * after commit, one item per run, concurrency keyed per workspace (and per endpoint or
 * connection). An item due later (a hold's expiry, a retry) is announced with its due time as the
 * event's `ts`, so Inngest starts the run when it is due: no run waits asleep, and nothing
 * bounds a whole run (Inngest's `timeouts.finish` counts from the first execution, sleeping
 * included). The step is bounded instead, by the kind's timeout (`runItem`, as in the embedded
 * engine). A retry is the kind's own schedule: a new event due at `retryAt`. A hold's (lease's,
 * handoff's) waiting run is cancelled when it settles or is extended (`cancelOn`, which Inngest
 * applies to runs scheduled for later too).
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
      retries: 3,
    },
    async ({ event, step }) => {
      const item = fromEventData(event.data as WorkEventData);
      // Due beyond Inngest's longest delay: started early, it announces the item again (a hop).
      if (startedEarly(item, event.ts)) {
        await step.sendEvent("not-yet", workEvent(kind.name, item, Math.max(Date.now(), event.ts!)));
        return { notYet: true };
      }
      const outcome = (await step.run("run", () => runItem(kind, item))) as { retryAt?: string | Date | null } | null | undefined;
      const retryAt = outcome?.retryAt ? new Date(outcome.retryAt) : null;
      if (retryAt) await step.sendEvent("run-again", workEvent(kind.name, { ...item, dueAt: retryAt }));
      return outcome ?? null;
    },
  );
}

/**
 * Housekeeping: on its clock only when it must run while idle (Google's channel renewal); the
 * rest after activity, started by the sweeps once per period (an idle deployment runs none).
 */
export function cronFunction(job: CronJob) {
  return inngest.createFunction(
    { id: job.name.replace(/\./g, "-"), triggers: [job.whileIdle ? { cron: job.cron } : { event: housekeepingEventName(job.name) }], concurrency: 1 },
    async ({ step }) => step.run(job.name, () => job.run()),
  );
}

/**
 * Re-announces work overdue in the database (its event was lost). Started by the sweep events
 * that writes arm for their items' due windows (lib/platform/jobs/schedule.ts), never by a clock: an idle
 * deployment runs no sweep. One step: the query and the send together (two executions a sweep).
 * It arms the next sweep while work is due later (the chain ends when none is), and starts the
 * housekeeping that clears up after activity, once per period.
 */
export const sweepFunction = inngest.createFunction({ id: "sweep-overdue-work", triggers: [{ event: SWEEP_EVENT }], concurrency: 1 }, async ({ step }) =>
  step.run("sweep", async () => {
    const kinds = enabledKinds();
    const events = [...(await overdueWork(kinds)), ...(await nextSweep(kinds)), ...housekeepingEvents(enabledCrons())];
    if (events.length) await inngest.send(events);
    return { announced: events.length };
  }),
);

/** Every Inngest function this deployment serves at /api/inngest (Google's only when Google is configured). */
export function inngestFunctions() {
  return [...enabledKinds().map(workFunction), ...enabledCrons().map(cronFunction), sweepFunction];
}
