import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { inArray } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { webhookEvents } from "../../../db/schema";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { startReceiver } from "../../../test/helpers/webhook-receiver";
import { setTestEnv } from "../../../test/helpers/env";
import { createEndpoint } from "../../domains/webhooks/create-endpoint";
import { transaction } from "../../../db/transaction";
import { emitEvent } from "../events/emit-event";

// Nothing is lost on a crash: a process running the engine and committing events is killed
// with SIGKILL mid-load, twice, and started again; every event acknowledged (by it or by the
// load from outside it) reaches the endpoint (at least once: a receiver deduplicating by
// webhook-id sees each exactly once), and the backlog drains within 15 s of the load stopping.
// The bound on duplicates: an attempt is repeated only when the process that made it dies
// before recording its outcome, so each kill repeats at most the attempts it had in flight
// (the engine's concurrency, CHILD_CONCURRENCY), and no event arrives more than once per kill
// plus once. A live process never repeats one (its lease outlasts the attempt's timeout).
// On a Postgres server only: an embedded PGlite directory belongs to one process, which this
// test kills.

setTestEnv({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32" });
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
});

function startChild(env: Record<string, string>, onAck: (id: string) => void): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/engine-child.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line === "READY") resolve(child);
        else if (line.startsWith("ACK ")) onAck(line.slice(4));
      }
    });
    child.on("exit", (code) => reject(new Error(`child exited with ${code} before it was ready`)));
  });
}

const KILLS = 2;
/** test/helpers/engine-child.ts runs the engine with this many items at once (JOB_CONCURRENCY: the production default pool). */
const CHILD_CONCURRENCY = 100;

const killed = (c: ChildProcess) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode ? resolve() : c.once("exit", () => resolve())));

describe.runIf(process.env.AGENTDRAFT_TEST_DB === "postgres")("a crash mid-load", () => {
  it("loses no acknowledged event: each is delivered to the endpoint, by webhook-id", { timeout: 150_000 }, async () => {
    const receiver = await startReceiver();
    // Three workspaces: the engine's own process commits into the first; the rest of the load
    // comes from outside it (other server processes), so while the engine is down a backlog
    // builds up in the database, and the restarted engine must find it and catch up.
    const workspaces = await Promise.all([0, 1, 2].map(() => newWorkspace()));
    for (const [i, { actor }] of workspaces.entries()) await createEndpoint(actor, { url: `${receiver.url}/crash/${i}` });
    const env = { CHILD_WORKSPACE: workspaces.map((w) => w.workspace.id).join(","), DATABASE_URL: process.env.DATABASE_URL!, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32", WEBHOOK_TIMEOUT_MS: "1000", JOB_CONCURRENCY: String(CHILD_CONCURRENCY) };
    const acked = new Map<string, number>(); // event id -> workspace index
    receiver.reply = () => ({ status: 200, delayMs: 5 });

    // The outside load: two writers until told to stop, half of it into the first workspace (a busy
    // tenant, whose backlog a page per refill interval drained slowest) and a quarter into each other.
    let loading = true;
    const writers = Array.from({ length: 2 }, async (_, w) => {
      for (let n = w; loading; n += 2) {
        const i = [0, 1, 0, 2][n % 4]!;
        const event = await transaction((tx) => emitEvent(tx, workspaces[i]!.actor, { type: "email.received", data: { n } }));
        acked.set(event.id, i);
      }
    });

    for (let round = 0; round < KILLS; round++) {
      const child = await startChild({ ...env, PRODUCE: "1" }, (id) => acked.set(id, 0));
      const target = acked.size + 300;
      while (acked.size < target) await new Promise((r) => setTimeout(r, 10));
      child.kill("SIGKILL");
      await killed(child);
      await new Promise((r) => setTimeout(r, 1_000)); // down for a second, under load
    }
    // The load stops: from here the backlog must drain.
    loading = false;
    await Promise.all(writers);
    const loadStopped = Date.now();
    const received = () => new Set(receiver.received.map((r) => String(r.headers["webhook-id"])));
    const backlog = [...acked.keys()].filter((id) => !received().has(id)).length;
    const survivor = await startChild(env, () => {});
    const drainedAt = new Map<number, number>();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const got = received();
      for (const i of [0, 1, 2]) if (!drainedAt.has(i) && [...acked].every(([id, w]) => w !== i || got.has(id))) drainedAt.set(i, Date.now() - loadStopped);
      if (drainedAt.size === 3 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    survivor.kill("SIGKILL");
    await killed(survivor);

    const missing = [...acked.keys()].filter((id) => !received().has(id));
    expect(missing).toEqual([]);
    // Nothing but these workspaces' committed events arrived (events committed but not yet acknowledged may too).
    const db = await getDb();
    const committed = new Set((await db.select({ id: webhookEvents.id }).from(webhookEvents).where(inArray(webhookEvents.workspaceId, workspaces.map((w) => w.workspace.id)))).map((e) => e.id));
    expect([...received()].every((id) => committed.has(id))).toBe(true);
    const duplicates = receiver.received.length - received().size;
    const drained = [0, 1, 2].map((i) => drainedAt.get(i) ?? Infinity);
    console.log(
      `crash test: ${acked.size} acknowledged, ${received().size} delivered, ${duplicates} delivered twice (in flight at a kill); ` +
        `${backlog} waiting when the load stopped, drained ${drained.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(" / ")} after it (per workspace)`,
    );
    // Issue #37: the restarted engine catches up at once, not at its idle poll or a page per refill
    // (it took 22 s then; about 15 s on an idle 2-core machine now, printed above). The floor is
    // the leases of deliveries in flight at the kill (timeout + 10 s); the bound leaves room for a
    // loaded machine: this is a correctness check, the speed is what the line above reports.
    expect(Math.max(...drained)).toBeLessThan(30_000);
    expect(duplicates).toBeLessThanOrEqual(KILLS * CHILD_CONCURRENCY);
    const perId = new Map<string, number>();
    for (const r of receiver.received) perId.set(String(r.headers["webhook-id"]), (perId.get(String(r.headers["webhook-id"])) ?? 0) + 1);
    expect(Math.max(...perId.values())).toBeLessThanOrEqual(1 + KILLS);
    await receiver.close();
  });
});
