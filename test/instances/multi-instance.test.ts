import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { resetEnvCache } from "../../lib/platform/config/env";
import { closeDb, getDb } from "../../db/client";
import { runMigrations } from "../../db/migrate";
import { calendarEvents, webhookDeliveries } from "../../db/schema";
import { startNeonWsProxy } from "../helpers/neon-ws-proxy";
import { startReceiver } from "../helpers/webhook-receiver";
import { startFakeResend } from "../helpers/fake-resend";
import { newAgent, newKey, newMember, newWorkspace } from "../helpers/fixtures";
import { overlappingBusy } from "../helpers/calendar-invariants";
import { createCalendar } from "../../lib/domains/calendars/calendars";
import { createEndpoint } from "../../lib/domains/webhooks/create-endpoint";
import { createInbox } from "../../lib/domains/mail/inboxes";
import { decideApproval } from "../../lib/domains/approvals/decide-approval";
import { LEASE_NAME } from "../../lib/platform/jobs/runner-lock";
import { freeze, ownsPid, startInstance, stopInstance, tail, thaw, type Instance } from "./next-instances";
import { atUtc } from "../helpers/clock";

// Production's shape, on this machine: three `next start` processes (the build in .next) on one
// Postgres database, each through PgBouncer in transaction mode with Neon's serverless driver
// over the local WebSocket proxy, as Vercel functions reach Neon's pooled URL. Agents are spread
// across the instances; the test process reads and decides through the direct URL.

const admin = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const pooledServer = process.env.TEST_POOLED_DATABASE_URL!;
const dbName = `agentdraft_instances_${Date.now()}`;
const direct = Object.assign(new URL(admin), { pathname: `/${dbName}` }).toString();
const pooled = Object.assign(new URL(pooledServer), { pathname: `/${dbName}` }).toString();
const basePort = process.env.INSTANCES_PORT ? Number(process.env.INSTANCES_PORT) : undefined;
const BURST = 30;
/** Mails sent by one key, each twice: within its burst, so no answer is a 429. */
const MAILS = 12;
let placedHolds = 0;

const encryptionKey = randomBytes(32).toString("base64");
let proxy: Awaited<ReturnType<typeof startNeonWsProxy>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let resend: Awaited<ReturnType<typeof startFakeResend>>;
const instances: Instance[] = [];
let workspaceId: string;
let actor: Awaited<ReturnType<typeof newWorkspace>>["actor"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function admin_(query: string) {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(query);
  await c.end();
}

/** A request to one instance with an API key; the body parsed. */
async function call(i: Instance, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${i.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Waits until `done()` is true, checking every 250 ms; fails with `what` after `ms`. */
async function until(what: string, done: () => Promise<boolean> | boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

const live = () => instances.filter((i) => !i.frozen);
const pendingDeliveries = async () => {
  const { rows } = await (await getDb()).execute<{ n: number }>(sql`select count(*)::int as n from webhook_deliveries where workspace_id = ${workspaceId} and status = 'pending'`);
  return Number(rows[0]!.n);
};
const unsentMessages = async () => {
  const { rows } = await (await getDb()).execute<{ n: number }>(sql`select count(*)::int as n from messages where workspace_id = ${workspaceId} and status = 'queued'`);
  return Number(rows[0]!.n);
};
/** Webhook ids the receiver got, and how many arrived more than once. */
function receivedIds() {
  const ids = receiver.received.map((r) => String(r.headers["webhook-id"]));
  return { unique: new Set(ids), duplicates: ids.length - new Set(ids).size };
}

beforeAll(async () => {
  await admin_(`create database "${dbName}"`);
  Object.assign(process.env, { DATABASE_URL: direct, AGENTDRAFT_ENCRYPTION_KEYS: encryptionKey, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32" });
  resetEnvCache();
  await runMigrations();
  [proxy, receiver, resend] = await Promise.all([startNeonWsProxy(), startReceiver(), startFakeResend()]);
  const env = {
    DATABASE_URL: pooled,
    DATABASE_URL_UNPOOLED: direct,
    DATABASE_DRIVER: "neon",
    NEON_WS_PROXY: `127.0.0.1:${proxy.port}/v1`,
    DATABASE_POOL_MAX: "10",
    AUTH_SECRET: randomBytes(32).toString("base64"),
    // Production needs its public URL: links in notices point at the first instance.
    AUTH_URL: "http://127.0.0.1:3000",
    AGENTDRAFT_ENCRYPTION_KEYS: encryptionKey,
    RESEND_API_KEY: resend.apiKey,
    RESEND_BASE_URL: resend.url,
    AGENTDRAFT_MAIL_DOMAIN: "agents.instances.dev",
    MAIL_FROM: "AgentDraft <agentdraft@agents.instances.dev>",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32",
    WEBHOOK_TIMEOUT_MS: "5000",
    JOB_RUNNER: "embedded",
    JOB_IDLE_POLL_MS: "300",
    API_RATE_LIMIT_PER_SECOND: "1",
    API_RATE_LIMIT_BURST: String(BURST),
  };
  // One after another: three builds' worth of start-up at once would only slow each other.
  for (const n of [0, 1, 2]) instances.push(await startInstance(`instance-${n}`, env, basePort === undefined ? undefined : basePort + n));
  const ws = await newWorkspace();
  workspaceId = ws.workspace.id;
  actor = ws.actor;
  await createEndpoint(actor, { url: `${receiver.url}/hooks` });
}, 300_000);

afterAll(async () => {
  for (const i of instances) stopInstance(i);
  await Promise.all([proxy?.close(), receiver?.close(), resend?.close()]);
  await closeDb();
  if (!process.env.KEEP_TEST_DATABASE) await admin_(`drop database if exists "${dbName}" with (force)`);
});

describe("three instances on one database, through PgBouncer (transaction mode) and Neon's driver", () => {
  it("books no time twice when agents on all three race for the same slots", async () => {
    const calendars = await Promise.all(["room-a", "room-b"].map((name) => createCalendar(actor, { name })));
    const agents = await Promise.all(Array.from({ length: 24 }, () => newAgent(workspaceId)));
    const keys = await Promise.all(agents.map((a) => newKey(workspaceId, { agent_id: a.id })));
    const base = Date.parse(atUtc(30, "09:00"));
    const statuses: number[] = [];
    await Promise.all(
      keys.map(async (k, n) => {
        const i = instances[n % 3]!;
        for (let round = 0; round < 3; round++) {
          const slot = Math.floor(Math.random() * 6) * 30 * 60_000;
          const start = base + slot + Math.floor(Math.random() * 2) * 15 * 60_000;
          const hold = await call(i, k.key, "POST", `/v1/calendars/${calendars[n % 2]!.id}/holds`, {
            start_time: new Date(start).toISOString(),
            end_time: new Date(start + 30 * 60_000).toISOString(),
            priority: Math.floor(Math.random() * 101),
            hold_ttl_seconds: 3600, // none expires during the test (an expiry is a webhook too)
          });
          statuses.push(hold.status);
          if (hold.status !== 201) continue;
          placedHolds++;
          // Commit on another instance than the one that placed it.
          const committed = await call(instances[(n + 1) % 3]!, k.key, "POST", `/v1/holds/${hold.body.id}/commit`, {});
          statuses.push(committed.status);
        }
      }),
    );
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 409).length).toBeGreaterThan(0); // they did race
    expect(await overlappingBusy(workspaceId)).toEqual([]);
    const events = await (await getDb()).select().from(calendarEvents).where(eq(calendarEvents.workspaceId, workspaceId));
    expect(events.length).toBeGreaterThan(0);
  });

  it("delivers each webhook once (by webhook-id), whichever instance committed the change", async () => {
    await until("every webhook delivered", async () => (await pendingDeliveries()) === 0, 90_000);
    const deliveries = await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.workspaceId, workspaceId));
    expect(deliveries.length).toBeGreaterThanOrEqual(placedHolds); // hold.created each, and more
    expect(deliveries.every((d) => d.status === "succeeded")).toBe(true);
    const { unique, duplicates } = receivedIds();
    expect(unique.size).toBe(deliveries.length);
    expect(duplicates).toBe(0);
  });

  it("sends each mail once, retried requests and all, whichever instance took it", async () => {
    const agent = await newAgent(workspaceId);
    const key = await newKey(workspaceId, { agent_id: agent.id });
    const inbox = await createInbox(actor, { agent_id: agent.id, username: "sender", allow_senders: [], block_senders: [] });
    const answers = await Promise.all(
      Array.from({ length: MAILS }, async (_, n) => {
        const body = { to: [`person${n}@example.com`], subject: `Hello ${n}`, text: "From three instances." };
        const headers = { "idempotency-key": `mail-${n}` };
        // The same request twice, to two instances (a client retrying after a lost answer).
        const [a, b] = await Promise.all([call(instances[n % 3]!, key.key, "POST", `/v1/inboxes/${inbox.id}/messages`, body, headers), call(instances[(n + 1) % 3]!, key.key, "POST", `/v1/inboxes/${inbox.id}/messages`, body, headers)]);
        return [a, b];
      }),
    );
    for (const [a, b] of answers) {
      expect([a!.status, b!.status].filter((s) => s === 201 || s === 202).length, JSON.stringify([a!.body, b!.body])).toBeGreaterThan(0);
      expect([a!.status, b!.status].every((s) => s < 500)).toBe(true);
      if (a!.status < 300 && b!.status < 300) expect(b!.body.id).toBe(a!.body.id);
    }
    await until("every mail sent", async () => (await unsentMessages()) === 0, 60_000);
    const mine = resend.sent.filter((s) => String(s.body.subject).startsWith("Hello "));
    expect(mine).toHaveLength(MAILS);
    expect(new Set(mine.map((s) => s.idempotencyKey)).size).toBe(MAILS);
    expect(new Set(mine.map((s) => s.body.subject)).size).toBe(MAILS);
  });

  it("holds one key to its rate limit across all three instances", async () => {
    const key = await newKey(workspaceId);
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 3 * BURST }, (_, n) => call(instances[n % 3]!, key.key, "GET", "/v1/me")));
    const seconds = (performance.now() - started) / 1000;
    const ok = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    // A full bucket of BURST, refilled at 1 a second while the requests ran; each instance alone would have let BURST through.
    expect(ok).toBeGreaterThanOrEqual(BURST);
    expect(ok).toBeLessThanOrEqual(BURST + Math.ceil(seconds) + 1);
    expect(limited.length).toBe(answers.length - ok);
    expect(limited.every((a) => Number(a.headers.get("retry-after")) >= 1 && a.body.code === "rate_limited")).toBe(true);
  });

  it("ends a long-poll on one instance as soon as a member decides (the decision made elsewhere)", async () => {
    const agent = await newAgent(workspaceId);
    const key = await newKey(workspaceId, { agent_id: agent.id });
    const { actor: approver } = await newMember(workspaceId, "approver");
    const created = await call(instances[0]!, key.key, "POST", "/v1/approvals", { summary: "Refund order 1042", evidence: { order: 1042 } });
    expect(created.status).toBe(201);
    // A witness: an approval nobody decides, polled on the same instance for 5 s from the moment of
    // the decision. Its wait ends by its own deadline (the instance enforces it), which the decided
    // poll must beat: the order of the answers, not the test's clock.
    const witness = await call(instances[0]!, key.key, "POST", "/v1/approvals", { summary: "Refund order 1043", evidence: { order: 1043 } });
    expect(witness.status).toBe(201);
    const settled: string[] = [];
    const poll = call(instances[1]!, key.key, "GET", `/v1/approvals/${created.body.id}?wait=25`).then((r) => (settled.push("decided"), r));
    await sleep(1_500);
    expect(settled).toEqual([]); // still waiting
    const waited = call(instances[1]!, key.key, "GET", `/v1/approvals/${witness.body.id}?wait=5`).then((r) => (settled.push("witness"), r));
    await decideApproval(approver, created.body.id, "approve");
    const answer = await poll;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("approved");
    expect((await waited).body.status).toBe("pending"); // ended by its 5 s deadline
    expect(settled).toEqual(["decided", "witness"]); // its instance polls the database each second
  });

  it("a frozen instance loses its background-work lease, and the others do its work", async () => {
    await until("earlier webhooks delivered", async () => (await pendingDeliveries()) === 0, 60_000);
    const holder = async () => {
      const { rows } = await (await getDb()).execute<{ holder: string }>(sql`select holder from job_runner_leases where name = ${LEASE_NAME} and expires_at > clock_timestamp()`);
      return rows[0]?.holder ?? null;
    };
    const owner = (h: string | null) => (h ? instances.find((i) => ownsPid(i, Number(h.split(":")[1]))) : undefined);
    await until("an engine lease", async () => (await holder()) !== null);
    const frozen = owner(await holder());
    expect(frozen, `no instance owns the lease ${await holder()}`).toBeDefined();
    freeze(frozen!);
    const frozenAt = performance.now();

    // Work committed on the live instances while the lease holder is frozen: holds and their webhooks.
    const before = receivedIds().unique.size;
    const calendar = await createCalendar(actor, { name: "after-freeze" });
    const key = await newKey(workspaceId);
    for (const [n, i] of live().entries()) {
      for (let h = 0; h < 5; h++) {
        const start = Date.parse(atUtc(60, "09:00")) + (n * 5 + h) * 3_600_000;
        const placed = await call(i, key.key, "POST", `/v1/calendars/${calendar.id}/holds`, { start_time: new Date(start).toISOString(), end_time: new Date(start + 1_800_000).toISOString(), hold_ttl_seconds: 3600 });
        expect(placed.status).toBe(201);
      }
    }
    await until("another instance to take the lease", async () => {
      const o = owner(await holder());
      return Boolean(o && o !== frozen);
    }, 75_000);
    const tookOverAfter = (performance.now() - frozenAt) / 1000;
    await until("the work committed meanwhile delivered", async () => (await pendingDeliveries()) === 0, 30_000);
    expect(receivedIds().unique.size).toBe(before + 10);
    console.log(`multi-instance: ${frozen!.name} frozen; lease taken over after ${tookOverAfter.toFixed(1)} s by ${owner(await holder())!.name}`);

    // Thawed, it finds its lease gone and does not take it back while the new holder renews it.
    thaw(frozen!);
    await sleep(3_000);
    expect(owner(await holder())).not.toBe(frozen);
    expect((await fetch(`${frozen!.url}/api/ping`)).ok).toBe(true);
    expect(receivedIds().duplicates).toBe(0);
    expect(tail(frozen!, 200)).toMatch(/lost the engine lock/);
  });
});
