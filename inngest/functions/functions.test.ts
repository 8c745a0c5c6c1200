// @suite moved-clock
import { afterEach, describe, expect, it, vi } from "vitest";
import { InngestTestEngine } from "@inngest/test";
import { sql } from "drizzle-orm";
import { resetEnvCache } from "../../lib/platform/config/env";
import { HOLD_EXPIRY_KIND } from "../../lib/domains/holds/expire-holds";
import { kindNamed, WORK_KINDS } from "../../lib/composition/job-kinds";
import { cancelEventName, MAX_EVENT_DELAY_MS, workEvent, workEventName, type WorkItem, type WorkKind, type WorkOutcome } from "../../lib/platform/jobs/work";
import { inngestFunctions, sweepFunction, workFunction } from "./index";

// The Inngest driver of the work registry. The lib functions an item runs are tested on a real
// database elsewhere; here a kind's run is a spy, so no run touches the database or the network.

const kind = (run: (i: WorkItem) => Promise<WorkOutcome>, extra: Partial<WorkKind> = {}): WorkKind => ({
  name: "test.item",
  source: () => sql`select 1`,
  run,
  limits: { perWorkspace: 3, perKey: 2, timeoutMs: 30_000 },
  ...extra,
});
// As Inngest hands it over: `ts` is the time the run was scheduled for (the due time, for work announced ahead).
const event = (dueAt: Date, id = "hold_1") => ({ name: workEventName("test.item"), data: { id, workspace_id: "ws_1", key: "whe_1", due_at: dueAt.toISOString() }, ts: Math.max(dueAt.getTime(), Date.now()) });

afterEach(() => {
  delete process.env.GOOGLE_CLIENT_ID;
  delete process.env.GOOGLE_CLIENT_SECRET;
  resetEnvCache();
});

describe("Inngest functions from the work registry", () => {
  it("runs one item per event, at once when it is due, with the item from the event", async () => {
    const run = vi.fn(async () => ({ result: "succeeded" }));
    const t = new InngestTestEngine({ function: workFunction(kind(run)), events: [event(new Date(Date.now() - 1000))] });
    const { result, ctx } = await t.execute();
    expect(result).toEqual({ result: "succeeded" });
    expect(run).toHaveBeenCalledTimes(1);
    expect(run).toHaveBeenCalledWith({ id: "hold_1", workspaceId: "ws_1", key: "whe_1", dueAt: expect.any(Date) });
    expect(ctx.step.sleepUntil).not.toHaveBeenCalled();
  });

  it("never sleeps: a timer (a hold's expiry) is announced with its due time as `ts`, and no deadline spans a whole run", async () => {
    const due = new Date(Date.now() + 3_600_000);
    expect(workEvent("test.item", { id: "hold_1", workspaceId: "ws_1", key: null, dueAt: due })).toEqual({
      id: `test.item:hold_1:${due.getTime()}`,
      name: workEventName("test.item"),
      data: { id: "hold_1", workspace_id: "ws_1", key: "", due_at: due.toISOString() },
      ts: due.getTime(),
    });
    for (const k of WORK_KINDS) expect(workFunction(k).opts.timeouts).toBeUndefined();
    const run = vi.fn(async () => ({ expired: true }));
    const { result, ctx } = await new InngestTestEngine({ function: workFunction(kind(run)), events: [event(due)] }).execute();
    expect(ctx.step.sleepUntil).not.toHaveBeenCalled();
    expect(result).toEqual({ expired: true });
  });

  it("a run started early (its ts capped at Inngest's longest delay) announces its item again instead of running it", async () => {
    const due = new Date(Date.now() + 20 * 86_400_000);
    const run = vi.fn(async () => ({ expired: true }));
    const early = { ...event(due), ts: Date.now() + MAX_EVENT_DELAY_MS };
    const { result, ctx } = await new InngestTestEngine({ function: workFunction(kind(run)), events: [early] }).execute({ steps: [{ id: "not-yet", handler: () => undefined }] });
    expect(run).not.toHaveBeenCalled();
    expect(result).toEqual({ notYet: true });
    expect(ctx.step.sendEvent).toHaveBeenCalledWith("not-yet", expect.objectContaining({ name: workEventName("test.item"), ts: expect.any(Number) }));
  });

  it("bounds the step by the kind's timeout: a hanging run fails its step (Inngest retries it)", async () => {
    const hanging = kind(() => new Promise(() => {}), { limits: { perWorkspace: 1, timeoutMs: 50 } });
    const { error } = await new InngestTestEngine({ function: workFunction(hanging), events: [event(new Date())] }).execute();
    expect(String((error as Error)?.message ?? error)).toMatch(/still running after 50 ms/);
  });

  it("schedules the item's own retry as a new event due at retryAt", async () => {
    const retryAt = new Date(Date.now() + 5_000);
    const t = new InngestTestEngine({ function: workFunction(kind(async () => ({ result: "failed", retryAt }))), events: [event(new Date())] });
    const { ctx } = await t.execute({ steps: [{ id: "run-again", handler: () => undefined }] });
    expect(ctx.step.sendEvent).toHaveBeenCalledWith("run-again", {
      id: `test.item:hold_1:${retryAt.getTime()}`,
      name: workEventName("test.item"),
      data: { id: "hold_1", workspace_id: "ws_1", key: "whe_1", due_at: retryAt.toISOString() },
      ts: retryAt.getTime(),
    });
  });

  it("keys concurrency per workspace and per endpoint, and cancels a hold's timer on commit, release or extend", () => {
    const fn = workFunction(kindNamed(HOLD_EXPIRY_KIND)!);
    expect(fn.opts.triggers).toEqual([{ event: "agentdraft/hold.expire" }]);
    expect(fn.opts.cancelOn).toEqual([{ event: cancelEventName(HOLD_EXPIRY_KIND), if: "async.data.id == event.data.id && async.data.keep_due_at != event.data.due_at" }]);
    expect(fn.opts.concurrency).toEqual([{ key: "event.data.workspace_id", limit: 8 }]);
    const deliveries = workFunction(kindNamed("webhook.deliver")!);
    expect(deliveries.opts.concurrency).toEqual([
      { key: "event.data.workspace_id", limit: 24 },
      { key: "event.data.key", limit: 16 },
    ]);
    expect(workFunction(kindNamed("audit.seal")!).opts.debounce).toEqual({ period: "1s", timeout: "10s" });
  });

  it("serves one function per kind, housekeeping no more often than every 5 minutes, Google only when configured", () => {
    const withoutGoogle = inngestFunctions();
    const ids = withoutGoogle.map((f) => f.id());
    expect(ids).not.toContain("google-sync");
    expect(ids).toContain("webhook-deliver");
    expect(ids).toContain("sweep-overdue-work");
    for (const f of withoutGoogle) {
      for (const trigger of f.opts.triggers as ({ cron: string } | { event: string })[]) {
        if ("cron" in trigger) expect(["*/15 * * * *"]).toContain(trigger.cron);
        else expect(trigger.event).toMatch(/^agentdraft\//);
      }
    }
    process.env.GOOGLE_CLIENT_ID = "id.apps.googleusercontent.com";
    process.env.GOOGLE_CLIENT_SECRET = "secret";
    resetEnvCache();
    const withGoogle = inngestFunctions().map((f) => f.id());
    expect(withGoogle).toEqual(expect.arrayContaining(["google-sync", "google-export", "google-renew-channels"]));
    expect(WORK_KINDS.map((k) => k.name)).toEqual(expect.arrayContaining(["webhook.deliver", "hold.expire", "approval.expire", "approval.notify", "approval.escalate", "mail.deliver", "mail.deliver-system", "audit.seal", "google.sync", "google.export"]));
  });

  it("no clock ticks but Google's channel renewal: sweeps and purges follow activity (run-semantics.db.test.ts bills an idle hour)", () => {
    const crons = () => inngestFunctions().flatMap((f) => (f.opts.triggers as { cron?: string }[]).filter((t) => t.cron).map((t) => `${f.id()} ${t.cron}`));
    expect(crons()).toEqual([]);
    expect(sweepFunction.opts.triggers).toEqual([{ event: "agentdraft/sweep" }]);
    process.env.GOOGLE_CLIENT_ID = "id.apps.googleusercontent.com";
    process.env.GOOGLE_CLIENT_SECRET = "secret";
    resetEnvCache();
    expect(crons()).toEqual(["google-renew-channels */15 * * * *"]);
  });
});
