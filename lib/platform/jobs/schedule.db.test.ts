// @suite pooled moved-clock
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

// With Inngest in charge, a committed change announces its work to Inngest's event API: here a
// local server speaking that API (POST /e/<event key>), with the real Inngest client pointed at it.

type Sent = { name: string; id?: string; data: Record<string, unknown>; ts?: number };
const sent: Sent[] = [];
const batches: Sent[][] = [];
let answering = true;
/** While down: a request is held unanswered until this settles, then its connection dropped. */
let downUntil: Promise<void> = Promise.resolve();
const held = { count: 0 };
const inngestApi = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    if (!answering) {
      held.count++;
      return void downUntil.then(() => req.socket.destroy());
    }
    expect(req.url).toBe("/e/test-event-key");
    const events = JSON.parse(body) as Sent[];
    batches.push(events);
    sent.push(...events);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: events.map((_, i) => `01TEST${i}`), status: 200 }));
  });
});
await new Promise<void>((r) => inngestApi.listen(0, "127.0.0.1", r));
Object.assign(process.env, {
  JOB_RUNNER: "inngest",
  INNGEST_EVENT_KEY: "test-event-key",
  INNGEST_BASE_URL: `http://127.0.0.1:${(inngestApi.address() as AddressInfo).port}/`,
  INNGEST_DEV: "0",
  HOLD_TTL_MIN_SECONDS: "1",
});

// The Inngest client reads its settings when its module loads: load this file's modules afresh
// (database test files share their worker's modules).
vi.resetModules();
const { resetEnvCache } = await import("../config/env");
const { transaction } = await import("../../../db/transaction");
const { emitEvent } = await import("../events/emit-event");
const { createEndpoint } = await import("../../domains/webhooks/create-endpoint");
const { createCalendar } = await import("../../domains/calendars/calendars");
const { placeHold } = await import("../../domains/holds/place-hold");
const { commitHold } = await import("../../domains/holds/commit-hold");
const { newKey, newWorkspace } = await import("../../../test/helpers/fixtures");
const { overdueWork } = await import("./sweep");
const { announcementsSent } = await import("./schedule");
const { enabledKinds } = await import("../../composition/job-kinds");

beforeAll(() => resetEnvCache());
afterAll(async () => {
  for (const k of ["JOB_RUNNER", "INNGEST_EVENT_KEY", "INNGEST_BASE_URL", "INNGEST_DEV", "HOLD_TTL_MIN_SECONDS"]) delete process.env[k];
  resetEnvCache();
  await new Promise<void>((r) => inngestApi.close(() => r()));
});

describe("announcing work to Inngest after commit", () => {
  it("sends one event per delivery once the change commits, and none for a rollback", async () => {
    const { workspace, actor } = await newWorkspace();
    const endpoint = await createEndpoint(actor, { url: "https://hooks.example.com/in" });
    await announcementsSent();
    sent.length = 0;
    await expect(
      transaction(async (tx) => {
        await emitEvent(tx, actor, { type: "email.received", data: {} });
        await announcementsSent();
        // Not before the commit: only the sweep that would find this work, were its announcement lost.
        expect(sent.filter((e) => e.name !== "agentdraft/sweep")).toEqual([]);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(sent.filter((e) => e.name === "agentdraft/webhook.deliver")).toEqual([]);

    const event = await transaction((tx) => emitEvent(tx, actor, { type: "email.received", data: {} }));
    await announcementsSent();
    const deliveries = sent.filter((e) => e.name === "agentdraft/webhook.deliver");
    expect(deliveries).toEqual([
      {
        name: "agentdraft/webhook.deliver",
        id: expect.stringMatching(/^webhook\.deliver:whd_[0-9a-z]{26}:\d+$/),
        data: { id: expect.stringMatching(/^whd_/), workspace_id: workspace.id, key: endpoint.id, due_at: event.createdAt.toISOString() },
        ts: expect.any(Number),
      },
    ]);
  });

  it("sends a hold's expiry timer due at its expires_at, and cancels it when the hold is committed", async () => {
    const { workspace, actor } = await newWorkspace();
    const { row } = await newKey(workspace.id);
    const keyActor = { type: "key" as const, workspaceId: workspace.id, keyId: row.id, agentId: null };
    const calendar = await createCalendar(actor, { name: "Room" });
    await announcementsSent();
    sent.length = 0;
    batches.length = 0;
    const { hold } = await placeHold(keyActor, { calendar_ids: [calendar.id], start_time: T(9), end_time: T(10), priority: 10, hold_ttl_seconds: 600, metadata: {} });
    await announcementsSent();
    // Inngest starts the run at its due time (`ts`): no run sleeps waiting for it.
    expect(sent.find((e) => e.name === "agentdraft/hold.expire")).toMatchObject({
      id: `hold.expire:${hold.id}:${hold.expiresAt.getTime()}`,
      data: { id: hold.id, workspace_id: workspace.id, key: "", due_at: hold.expiresAt.toISOString() },
      ts: hold.expiresAt.getTime(),
    });
    // A commit's announcements (timer, sealing, and the sweep that covers the timer's window) in one request.
    const work = batches.filter((b) => b.some((e) => e.name !== "agentdraft/sweep"));
    expect(work).toHaveLength(1);
    expect(work[0]!.map((e) => e.name)).toEqual(expect.arrayContaining(["agentdraft/audit.seal", "agentdraft/hold.expire"]));
    expect(sent.filter((e) => e.name === "agentdraft/sweep").map((e) => e.ts)).toContain(Math.ceil(hold.expiresAt.getTime() / 600_000) * 600_000 + 60_000);
    await commitHold(keyActor, hold.id);
    await announcementsSent();
    expect(sent.find((e) => e.name === "agentdraft/hold.expire.cancel")?.data).toEqual({ id: hold.id, keep_due_at: "" });
  });

  it("never fails the request when Inngest cannot be reached: the change stands and the sweeper sends it later", async () => {
    const { actor } = await newWorkspace();
    await createEndpoint(actor, { url: "https://hooks.example.com/down" });
    answering = false;
    let fail!: () => void;
    downUntil = new Promise<void>((r) => (fail = r));
    held.count = 0;
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const event = await transaction((tx) => emitEvent(tx, actor, { type: "email.received", data: {} }));
    expect(event.id).toMatch(/^whm_/);
    // The change is answered while its send to Inngest has not even failed yet (the event API
    // holds it until the test lets it fail): the send is after the answer.
    expect(error).not.toHaveBeenCalled();
    fail();
    await announcementsSent();
    expect(held.count).toBeGreaterThan(0);
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/could not send \d+ event\(s\) to Inngest \(the sweeper will\)/));
    error.mockRestore();
    answering = true;
    // A sweep (armed for this window) finds it in the database once it is a minute overdue.
    // (The delivery's; its audit entries' sealing, also unannounced, may be overdue too, unless
    // another file's sealer on the same database server got to them first.)
    const inAMinute = await overdueWork(enabledKinds(), new Date(Date.now() + 61_000));
    expect(inAMinute.filter((e) => e.data.workspace_id === actor.workspaceId && e.name !== "agentdraft/audit.seal")).toEqual([
      { id: expect.stringMatching(/^webhook\.deliver:whd_/), name: "agentdraft/webhook.deliver", data: expect.objectContaining({ id: expect.stringMatching(/^whd_/), due_at: event.createdAt.toISOString() }) },
    ]);
    expect((await overdueWork(enabledKinds())).filter((e) => e.data.workspace_id === actor.workspaceId && e.name !== "agentdraft/audit.seal")).toEqual([]);
  });
});
