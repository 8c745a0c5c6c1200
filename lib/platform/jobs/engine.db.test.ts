// @suite pooled moved-clock
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, sql } from "drizzle-orm";
import { getDb, getDriver } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { holds, outboundMail, webhookDeliveries, webhookEndpoints } from "../../../db/schema";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { startReceiver } from "../../../test/helpers/webhook-receiver";
import { emitEvent } from "../events/emit-event";
import { createEndpoint } from "../../domains/webhooks/create-endpoint";
import { createApproval } from "../../domains/approvals/create-approval";
import { createCalendar } from "../../domains/calendars/calendars";
import { placeHold } from "../../domains/holds/place-hold";
import { extendHold } from "../../domains/holds/extend-hold";
import { enabledKinds } from "../../composition/job-kinds";
import { createEngine, type Engine } from "./engine";
import { acquireRunnerLock } from "./runner-lock";
import { setLocalEngine } from "./schedule";
import type { WorkKind } from "./work";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

// The embedded engine with the real registry, a real database and real HTTP receivers on
// loopback. The engine only sees this file's workspaces (the Postgres run shares a database
// with other files), through the same source queries it uses in production.

setTestEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32", WEBHOOK_TIMEOUT_MS: "15000", HOLD_TTL_MIN_SECONDS: "1" });

const LEASE = `engine-test-${process.pid}`; // this file's own lease: other files share the Postgres database
const mine = new Set<string>(["-"]); // "-": the audit sealer's single item
let engine: Engine | undefined;

function startEngine() {
  const kinds: WorkKind[] = enabledKinds().map((k) => ({
    ...k,
    source: () => sql`select * from (${k.source()}) as own where own.workspace_id in (${sql.join([...mine].map((w) => sql`${w}`), sql`, `)})`,
  }));
  engine = createEngine({ kinds, crons: [], concurrency: 100, idlePollMs: 500, acquireLock: () => acquireRunnerLock({ name: LEASE }) });
  setLocalEngine(engine);
  engine.start();
}
afterEach(async () => {
  await engine?.stop(2_000);
  setLocalEngine(undefined);
  engine = undefined;
});

async function workspace() {
  const w = await newWorkspace();
  mine.add(w.workspace.id);
  return w;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean | Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(20);
  }
}

describe("the engine's lease row (one engine per deployment, through any pooler)", () => {
  it("is held by one process at a time, renewable, and taken over once it expires", async () => {
    const first = await acquireRunnerLock({ name: `${LEASE}-rows`, holder: "first", ttlMs: 1_500 });
    expect(first).not.toBeNull();
    if ((await getDriver()) === "pglite") return first!.release(); // one process per data dir: implied
    expect(await acquireRunnerLock({ name: `${LEASE}-rows`, holder: "second", ttlMs: 1_500 })).toBeNull();
    await first!.release();
    const second = await acquireRunnerLock({ name: `${LEASE}-rows`, holder: "second", ttlMs: 600 });
    expect(second).not.toBeNull();
    // "second" stops renewing (a frozen instance): after its TTL another takes over.
    await (await getDb()).execute(sql`update job_runner_leases set expires_at = clock_timestamp() - interval '1 second' where name = ${`${LEASE}-rows`}`);
    const third = await acquireRunnerLock({ name: `${LEASE}-rows`, holder: "third", ttlMs: 1_500 });
    expect(third).not.toBeNull();
    await third!.release();
    await second!.release();
  });
});

describe("the embedded engine, end to end", () => {
  let noisy: Awaited<ReturnType<typeof startReceiver>>;
  let quiet: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    noisy = await startReceiver();
    quiet = await startReceiver();
  });
  afterAll(async () => {
    await noisy.close();
    await quiet.close();
  });

  it("a tenant whose endpoint hangs and then answers 410 slows only itself; its pathological URL disables cleanly", async () => {
    const a = await workspace();
    await newMember(a.workspace.id, "owner");
    // A URL of about 2,000 characters: the disabled notice's subject is built from it.
    const longUrl = `${noisy.url}/${"x".repeat(1_990)}`;
    const hanging = await createEndpoint(a.actor, { url: longUrl });
    // The noisy endpoint hangs until the test lets it answer (410), or until WEBHOOK_TIMEOUT_MS.
    let answerNoisy!: () => void;
    const noisyAnswers = new Promise<void>((r) => (answerNoisy = r));
    const noisyAnswered = { count: 0 };
    noisy.reply = () => ({ status: 410, after: noisyAnswers.then(() => void noisyAnswered.count++) });
    const b = await workspace();
    await createEndpoint(b.actor, { url: `${quiet.url}/b` });
    startEngine();

    for (let i = 0; i < 150; i++) await transaction((tx) => emitEvent(tx, a.actor, { type: "hold.created", data: { i } }));
    await until(() => noisy.received.length > 0);
    const committed: string[] = [];
    const arrived = new Set<string>();
    quiet.reply = (r) => {
      arrived.add(String(r.headers["webhook-id"]));
      return { status: 200 };
    };
    for (let i = 0; i < 20; i++) {
      const event = await transaction((tx) => emitEvent(tx, b.actor, { type: "hold.created", data: { i } }));
      committed.push(event.id);
      await sleep(25);
    }
    await until(() => arrived.size === 20);
    // Every one of the quiet tenant's events arrived while the noisy tenant's requests still hung,
    // unanswered and not yet given up on (WEBHOOK_TIMEOUT_MS, 15 s): none waited behind them.
    expect([...arrived].sort()).toEqual([...committed].sort());
    expect(noisyAnswered.count).toBe(0);
    const [stillHanging] = await (await getDb()).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hanging.id));
    expect(stillHanging!.enabled).toBe(true);
    const noisyDeliveries = await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hanging.id));
    expect(noisyDeliveries.filter((d) => d.status !== "pending" || d.lastError !== null || d.lastResponseStatus !== null)).toEqual([]); // no attempt of theirs has ended
    answerNoisy();

    // The noisy tenant's own fate: disabled on its first 410, the notice written (subject clamped).
    await until(async () => {
      const [ep] = await (await getDb()).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hanging.id));
      return ep!.enabled === false;
    });
    const notices = await (await getDb()).select().from(outboundMail).where(and(eq(outboundMail.workspaceId, a.workspace.id), eq(outboundMail.kind, "webhook_endpoint_disabled")));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.subject.length).toBeLessThanOrEqual(300);
    expect(notices[0]!.text).toContain(longUrl);
    const failed = await (await getDb()).select().from(webhookDeliveries).where(and(eq(webhookDeliveries.endpointId, hanging.id), eq(webhookDeliveries.status, "failed")));
    expect(failed.length).toBeGreaterThanOrEqual(1);
  });

  it("an approval in a workspace with more than 50 people to tell is notified in chunks, and does not hold up another workspace's", async () => {
    const big = await workspace();
    for (let i = 0; i < 61; i++) await newMember(big.workspace.id, i % 2 ? "approver" : "owner");
    const small = await workspace();
    await newMember(small.workspace.id, "owner");
    startEngine();
    const ask = async (w: Awaited<ReturnType<typeof workspace>>) => {
      const agent = await newAgent(w.workspace.id);
      const { row } = await newKey(w.workspace.id, { agent_id: agent.id });
      return createApproval({ type: "key", workspaceId: w.workspace.id, keyId: row.id, agentId: agent.id }, { summary: "Refund order 8812", evidence: {} });
    };
    await ask(big);
    await ask(small);
    const mailOf = async (workspaceId: string) =>
      (await getDb()).select().from(outboundMail).where(and(eq(outboundMail.workspaceId, workspaceId), eq(outboundMail.kind, "approval_requested")));
    await until(async () => (await mailOf(big.workspace.id)).length === 2 && (await mailOf(small.workspace.id)).length === 1);
    expect((await mailOf(big.workspace.id)).map((m) => m.to.length).sort((x, y) => x - y)).toEqual([11, 50]);
  });

  it("expires a hold at its TTL (a timer, not a poll), and an extend moves the timer", async () => {
    const w = await workspace();
    const receiver = await startReceiver();
    await createEndpoint(w.actor, { url: `${receiver.url}/holds`, event_types: ["hold.expired"] });
    const { row } = await newKey(w.workspace.id);
    const actor = { type: "key" as const, workspaceId: w.workspace.id, keyId: row.id, agentId: null };
    const calendar = await createCalendar(w.actor, { name: "Room" });
    startEngine();
    const place = (minute: number) =>
      placeHold(actor, { calendar_ids: [calendar.id], start_time: T(9, minute), end_time: T(9, minute + 10), priority: 50, hold_ttl_seconds: 1, metadata: {} });
    const short = (await place(0)).hold;
    const extended = (await place(20)).hold;
    await extendHold(actor, extended.id, 3);
    await until(() => receiver.received.length >= 1, 5_000);
    const statusOf = async (id: string) => (await (await getDb()).select({ status: holds.status }).from(holds).where(eq(holds.id, id)))[0]!.status;
    expect(await statusOf(short.id)).toBe("expired");
    expect(await statusOf(extended.id)).toBe("held");
    await until(() => receiver.received.length >= 2, 6_000);
    expect(await statusOf(extended.id)).toBe("expired");
    const ids = receiver.received.map((r) => (JSON.parse(r.body) as { data: { hold: { id: string } } }).data.hold.id);
    expect(ids).toEqual([short.id, extended.id]);
    await receiver.close();
  });

  it("picks up work committed while no engine ran (a restart), from the database alone", async () => {
    const w = await workspace();
    const receiver = await startReceiver();
    await createEndpoint(w.actor, { url: `${receiver.url}/later` });
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await transaction((tx) => emitEvent(tx, w.actor, { type: "email.received", data: { i } })));
    const pending = await (await getDb()).select().from(webhookDeliveries).where(inArray(webhookDeliveries.eventId, events.map((e) => e.id)));
    expect(pending.every((d) => d.status === "pending")).toBe(true);
    startEngine();
    await until(() => receiver.received.length === 5);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set(events.map((e) => e.id)));
    await receiver.close();
  });
});
