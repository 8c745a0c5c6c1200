// @suite pooled
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { openStream, sseBlocks, type SseBlock } from "../../../test/helpers/sse";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { operatorActor } from "../../platform/actor";
import { resetEnvCache } from "../../platform/config/env";
import { emitEvent, type EventType } from "../../platform/events/emit-event";
import { compare, parsePosition as parseGiven, type StreamPosition } from "./read-events";

const parsePosition = (value: string) => parseGiven(value) as StreamPosition;

const LIMITS = { EVENTS_STREAMS_PER_KEY: "3", EVENTS_STREAM_MAX_SECONDS: "60", EVENTS_HEARTBEAT_SECONDS: "1", EVENTS_POLL_INTERVAL_MS: "100" };
Object.assign(process.env, LIMITS);
resetEnvCache();
afterAll(() => {
  for (const k of Object.keys(LIMITS)) delete process.env[k];
  resetEnvCache();
});

const { url } = serveApiForTests();
const onPostgres = process.env.AGENTDRAFT_TEST_DB === "postgres";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function emit(workspaceId: string, type: EventType, agentId: string | null = null, data: Record<string, unknown> = {}) {
  return transaction((tx) => emitEvent(tx, operatorActor(workspaceId), { type, agentId, data }));
}

type Received = { position: string; type: string; id: string; data: Record<string, unknown> };

/**
 * Reads a stream until `done` says so (given the events so far and the last position seen,
 * heartbeats included), then disconnects. Fails after `ms`.
 */
async function readUntil(res: Response, abort: AbortController, done: (events: Received[], position: string | undefined) => boolean, ms = 20_000) {
  const events: Received[] = [];
  const blocks: SseBlock[] = [];
  let position: string | undefined;
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    for await (const block of sseBlocks(res.body!)) {
      blocks.push(block);
      if (block.id) position = block.id;
      if (block.data !== undefined) {
        const payload = JSON.parse(block.data) as { id: string; type: string; data: Record<string, unknown> };
        expect(block.event).toBe(payload.type);
        events.push({ position: block.id!, type: payload.type, id: payload.id, data: payload.data });
      }
      if (done(events, position)) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { events, blocks, position };
}

async function committedEventIds(workspaceId: string): Promise<string[]> {
  const db = await getDb();
  await db.execute(sql`select agentdraft_event_head(${workspaceId})`); // numbers what has committed
  const { rows } = await db.execute<{ id: string }>(sql`select id from webhook_events where workspace_id = ${workspaceId} order by position`);
  return rows.map((r) => r.id);
}

async function lastPosition(workspaceId: string): Promise<string> {
  const db = await getDb();
  const { rows } = await db.execute<{ p: string }>(sql`select agentdraft_event_head(${workspaceId})::text as p`);
  return rows[0]!.p;
}

const reached = (target: string) => (_: Received[], position: string | undefined) => position !== undefined && compare(parsePosition(position), parsePosition(target)) >= 0;

async function openSlots(keyId: string): Promise<number> {
  const db = await getDb();
  const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from event_stream_slots where key_id = ${keyId}`);
  return Number(rows[0]!.n);
}

function expectStrictlyIncreasing(events: Received[]) {
  for (let i = 1; i < events.length; i++) expect(compare(parsePosition(events[i]!.position), parsePosition(events[i - 1]!.position))).toBe(1);
}

describe("GET /v1/events", () => {
  it("resumes a stream cut mid-burst with Last-Event-ID: no event missing, none twice", async () => {
    const { workspace } = await newWorkspace();
    const { key, row: apiKey } = await newKey(workspace.id);
    const agent = await newAgent(workspace.id);

    const first = new AbortController();
    const res = await openStream(url(), key, { signal: first.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);

    // Four writers race 25 commits each (some of two events) while the reader is cut after 30.
    const writers = Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 25; i++) {
          await transaction(async (tx) => {
            await emitEvent(tx, operatorActor(workspace.id), { type: "approval.requested", agentId: agent.id, data: { w, i } });
            if (i % 5 === 0) await emitEvent(tx, operatorActor(workspace.id), { type: "hold.created", agentId: agent.id, data: { w, i, second: true } });
          });
        }
      }),
    );
    const a = await readUntil(res, first, (events) => events.length >= 30);
    expect(a.events.length).toBe(30);

    const second = new AbortController();
    const resumed = await openStream(url(), key, { lastEventId: a.events.at(-1)!.position, signal: second.signal });
    expect(resumed.status).toBe(200);
    await writers;
    const all = await committedEventIds(workspace.id);
    expect(all.length).toBe(120);
    const b = await readUntil(resumed, second, (events) => a.events.length + events.length >= all.length);

    const received = [...a.events, ...b.events];
    expect(received.map((e) => e.id)).toEqual(all); // every committed event, once, in stream order
    expectStrictlyIncreasing(received);
    // Both disconnects freed their slots.
    await expect.poll(() => openSlots(apiKey.id), { timeout: 60_000 }).toBe(0);
  });

  it("filters by the key's scopes and agent, and by ?types=", async () => {
    const { workspace } = await newWorkspace();
    const { workspace: other } = await newWorkspace();
    const mine = await newAgent(workspace.id);
    const theirs = await newAgent(workspace.id);
    const keys = {
      wide: (await newKey(workspace.id)).key,
      calendar: (await newKey(workspace.id, { scopes: ["calendar"] })).key,
      agent: (await newKey(workspace.id, { agent_id: mine.id })).key,
      agentMail: (await newKey(workspace.id, { agent_id: mine.id, scopes: ["mail"] })).key,
      wideHolds: (await newKey(workspace.id)).key,
    };
    const streams = await Promise.all(
      Object.entries(keys).map(async ([name, key]) => {
        const abort = new AbortController();
        const res = await openStream(url(), key, { signal: abort.signal, query: name === "wideHolds" ? "types=hold.created,hold.released" : undefined });
        expect(res.status).toBe(200);
        return { name, res, abort };
      }),
    );
    await emit(workspace.id, "hold.created", mine.id, { n: 1 });
    await emit(workspace.id, "approval.requested", mine.id, { n: 2 });
    await emit(workspace.id, "approval.requested", theirs.id, { n: 3 });
    await emit(workspace.id, "calendar.synced", null, { n: 4 });
    await emit(workspace.id, "email.received", mine.id, { n: 5 });
    await emit(workspace.id, "hold.released", theirs.id, { n: 6 });
    await emit(other.id, "hold.created", null, { n: 99 });
    const end = await lastPosition(workspace.id);

    const seen = Object.fromEntries(
      await Promise.all(streams.map(async (s) => [s.name, (await readUntil(s.res, s.abort, reached(end))).events.map((e) => e.data.n)] as const)),
    );
    expect(seen).toEqual({
      wide: [1, 2, 3, 4, 5, 6],
      calendar: [1, 4, 6],
      agent: [1, 2, 5],
      agentMail: [5],
      wideHolds: [1, 6],
    });
  });

  it("starts from ?since= when there is no Last-Event-ID", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    await emit(workspace.id, "hold.created", null, { n: 1 });
    await sleep(20);
    const since = new Date().toISOString();
    await sleep(20);
    await emit(workspace.id, "hold.created", null, { n: 2 });
    await emit(workspace.id, "hold.released", null, { n: 3 });
    const abort = new AbortController();
    const res = await openStream(url(), key, { signal: abort.signal, query: `since=${since}` });
    const { events } = await readUntil(res, abort, reached(await lastPosition(workspace.id)));
    expect(events.map((e) => e.data.n)).toEqual([2, 3]);
  });

  it("bounds the open streams per key (429 beyond), across racing opens, and frees a slot on disconnect", async () => {
    const { workspace } = await newWorkspace();
    const { key, row: apiKey } = await newKey(workspace.id);
    const { key: otherKey } = await newKey(workspace.id);
    const aborts = Array.from({ length: 7 }, () => new AbortController());
    const answers = await Promise.all(aborts.map((abort) => openStream(url(), key, { signal: abort.signal })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((await refused.json()).code).toBe("rate_limited");
    expect(await openSlots(apiKey.id)).toBe(3);

    // Another key of the workspace has its own slots.
    const otherAbort = new AbortController();
    expect((await openStream(url(), otherKey, { signal: otherAbort.signal })).status).toBe(200);
    otherAbort.abort();

    // Disconnecting one stream frees its slot at once.
    const open = answers.map((r, i) => ({ r, abort: aborts[i]! })).filter((x) => x.r.status === 200);
    open[0]!.abort.abort();
    await expect.poll(() => openSlots(apiKey.id), { timeout: 60_000 }).toBe(2);
    const again = new AbortController();
    expect((await openStream(url(), key, { signal: again.signal })).status).toBe(200);
    for (const x of [...open, { abort: again }]) x.abort.abort();
    await expect.poll(() => openSlots(apiKey.id), { timeout: 60_000 }).toBe(0);
  });

  it("sends heartbeats carrying the position, and ends a connection cleanly after its longest life", async () => {
    process.env.EVENTS_STREAM_MAX_SECONDS = "3";
    resetEnvCache();
    try {
      const { workspace } = await newWorkspace();
      const { key, row: apiKey } = await newKey(workspace.id);
      const res = await openStream(url(), key);
      await emit(workspace.id, "hold.created", null, { n: 1 });
      const blocks: SseBlock[] = [];
      for await (const block of sseBlocks(res.body!)) blocks.push(block);
      const comments = blocks.flatMap((b) => b.comments);
      expect(comments[0]).toBe("connected");
      expect(comments).toContain("heartbeat");
      expect(comments.at(-1)).toMatch(/^closing after 3 s; reconnect with Last-Event-ID/);
      expect(blocks.filter((b) => b.data).map((b) => JSON.parse(b.data!).data)).toEqual([{ n: 1 }]);
      expect(blocks[0]!.id).toMatch(/^\d+$/); // resumable even before the first event
      expect(await openSlots(apiKey.id)).toBe(0);
    } finally {
      process.env.EVENTS_STREAM_MAX_SECONDS = LIMITS.EVENTS_STREAM_MAX_SECONDS;
      resetEnvCache();
    }
  });

  it("refuses bad input with a problem before a slot is taken", async () => {
    const { workspace } = await newWorkspace();
    const { key, row: apiKey } = await newKey(workspace.id);
    const { key: auditOnly } = await newKey(workspace.id, { scopes: ["audit"] });
    const cases: [Promise<Response>, number, string][] = [
      [openStream(url(), key, { lastEventId: "whm_nope" }), 400, "validation_failed"],
      [openStream(url(), key, { lastEventId: "99999999999999999999.1" }), 400, "validation_failed"],
      [openStream(url(), key, { query: "after=1.x" }), 400, "validation_failed"],
      [openStream(url(), key, { query: "types=hold.created,nope" }), 400, "validation_failed"],
      [openStream(url(), key, { query: "since=yesterday" }), 400, "validation_failed"],
      [openStream(url(), auditOnly), 403, "insufficient_scope"],
      [openStream(url(), "ad_live_" + "x".repeat(43)), 401, "unauthorized"],
    ];
    for (const [answer, status, code] of cases) {
      const res = await answer;
      expect(res.status).toBe(status);
      expect((await res.json()).code).toBe(code);
    }
    expect(await openSlots(apiKey.id)).toBe(0);
  });

  it("refuses a well-formed cursor past the stream's head with a 400 that says where the head is (issue #37)", async () => {
    const { workspace } = await newWorkspace();
    const { key, row: apiKey } = await newKey(workspace.id);
    // Where the stream is now: a new connection's first id.
    const abort = new AbortController();
    const first = await readUntil(await openStream(url(), key, { signal: abort.signal }), abort, (_, position) => position !== undefined);
    const head = parsePosition(first.position!);
    await expect.poll(() => openSlots(apiKey.id), { timeout: 60_000 }).toBe(0);
    const future = `${BigInt(head.position) + 1_000_000n}`;
    // And a cursor of the previous design, (txid, seq), past its horizon.
    const legacyFuture = `${2n ** 62n}.3`;
    for (const opened of [openStream(url(), key, { lastEventId: future }), openStream(url(), key, { query: `after=${future}` }), openStream(url(), key, { lastEventId: legacyFuture })]) {
      const res = await opened;
      expect(res.status).toBe(400);
      const problem = await res.json();
      expect(problem.code).toBe("validation_failed");
      expect(compare(parsePosition(problem.head), head)).toBeGreaterThanOrEqual(0);
      expect(problem.detail).toContain(problem.head);
      expect(problem.errors[0].message).toContain("past the stream's head");
    }

    // The head itself, and anything before it, is a good place to resume: an event committed after it arrives.
    for (const cursor of [first.position!, "0", "1.1"]) {
      const ac = new AbortController();
      const res = await openStream(url(), key, { lastEventId: cursor, signal: ac.signal });
      expect(res.status, cursor).toBe(200);
      const marker = `resume-${cursor}`;
      setTimeout(() => void emit(workspace.id, "hold.created", null, { marker }), 50);
      const { events } = await readUntil(res, ac, (evs) => evs.some((e) => e.data.marker === marker));
      expect(events.some((e) => e.data.marker === marker), cursor).toBe(true);
      await expect.poll(() => openSlots(apiKey.id), { timeout: 60_000 }).toBe(0);
    }
  });
});

describe("cursors of the previous design, (txid, seq)", () => {
  it("resumes right after the event a legacy cursor names, over events written before positions existed", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    for (let n = 1; n <= 4; n++) await emit(workspace.id, "hold.created", null, { n });
    // As before the migration: no positions, no head (the first read numbers them, in (txid, seq) order).
    const db = await getDb();
    await db.execute(sql`update webhook_events set position = null where workspace_id = ${workspace.id}`);
    await db.execute(sql`delete from event_stream_heads where workspace_id = ${workspace.id}`);
    const { rows } = await db.execute<{ p: string }>(
      sql`select txid::text || '.' || seq::text as p from webhook_events where workspace_id = ${workspace.id} and data->>'n' = '2'`,
    );
    const legacy = rows[0]!.p;
    // The previous design issued a cursor only behind its horizon: once every transaction older
    // than the event's had ended (the snapshot's xmin, over the whole server). On a server other
    // test files share, one of their open transactions may hold the horizon back for a moment.
    const txid = legacy.split(".")[0]!;
    await expect
      .poll(async () => (await db.execute<{ behind: boolean }>(sql`select pg_snapshot_xmin(pg_current_snapshot())::text::bigint >= ${txid}::bigint as behind`)).rows[0]!.behind)
      .toBe(true);

    const ac = new AbortController();
    const res = await openStream(url(), key, { lastEventId: legacy, signal: ac.signal });
    expect(res.status).toBe(200);
    setTimeout(() => void emit(workspace.id, "hold.created", null, { n: 5 }), 50);
    const { events } = await readUntil(res, ac, (evs) => evs.some((e) => e.data.n === 5));
    expect(events.map((e) => e.data.n)).toEqual([3, 4, 5]);
    expectStrictlyIncreasing(events);
  });
});

describe.runIf(onPostgres)("the stream's order over transactions that commit out of sequence", () => {
  it("gives an event committed after an older open transaction's at once, and the older one, after it commits, next", async () => {
    const { readEvents } = await import("./read-events");
    const { workspace } = await newWorkspace();
    const filter = { workspaceId: workspace.id, agentId: null, types: ["approval.requested"] as EventType[] };
    const start = (await readEvents(filter, null)).next;

    let release!: () => void;
    let written!: () => void;
    const firstWritten = new Promise<void>((r) => (written = r));
    const first = transaction(async (tx) => {
      await emitEvent(tx, operatorActor(workspace.id), { type: "approval.requested", data: { which: "first" } });
      written();
      await new Promise<void>((r) => (release = r));
    });
    await firstWritten;
    await emit(workspace.id, "approval.requested", null, { which: "second" });

    // "second" committed: it is read now, though "first" began (and was numbered) before it and is still open.
    const early = await readEvents(filter, start);
    expect(early.events.map((e) => e.payload.data.which)).toEqual(["second"]);

    release();
    await first;
    // "first" was not passed over: committed now, it comes after the position already read, not behind it.
    const after = await readEvents(filter, early.next);
    expect(after.events.map((e) => e.payload.data.which)).toEqual(["first"]);
    expect(compare(parsePosition(after.events[0]!.position), parsePosition(early.events[0]!.position))).toBe(1);
  });

  it("loses nothing and repeats nothing while 12 writers commit and roll back in random order", async () => {
    const { readEvents } = await import("./read-events");
    const { workspace } = await newWorkspace();
    const filter = { workspaceId: workspace.id, agentId: null, types: ["hold.created"] as EventType[] };
    let position = (await readEvents(filter, null)).next;
    const seen: string[] = [];
    let naiveSeq = 0n;
    const naiveSeen = new Set<string>();
    let writing = true;
    const db = await getDb();

    const reader = (async () => {
      for (let last = false; ; ) {
        const { events, next } = await readEvents(filter, position);
        seen.push(...events.map((e) => e.payload.id));
        position = next;
        // A reader that trusts the sequence alone, for comparison.
        const naive = await db.execute<{ id: string; seq: string }>(sql`select id, seq::text from webhook_events where workspace_id = ${workspace.id} and seq > ${naiveSeq.toString()}::bigint order by seq`);
        for (const r of naive.rows) naiveSeen.add(r.id);
        if (naive.rows.length) naiveSeq = BigInt(naive.rows.at(-1)!.seq);
        if (last) break;
        if (!writing) last = true;
        await sleep(3);
      }
    })();
    const writers = Array.from({ length: 12 }, async (_, w) => {
      for (let i = 0; i < 10; i++) {
        await transaction(async (tx) => {
          await emitEvent(tx, operatorActor(workspace.id), { type: "hold.created", data: { w, i } });
          await sleep(Math.random() * 30);
          if (i % 4 === 3) throw new Error("roll back");
        }).catch((err: Error) => {
          if (err.message !== "roll back") throw err;
        });
      }
    });
    await Promise.all(writers);
    writing = false;
    await reader;

    const committed = await committedEventIds(workspace.id);
    expect(committed.length).toBe(12 * 8); // i = 3 and 7 roll back
    expect(seen).toEqual(committed);
    console.log(`[events] a sequence-only reader missed ${committed.length - naiveSeen.size} of ${committed.length} events; the stream missed none`);
  });
});

describe.runIf(onPostgres)("a stream across a server restart", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
  });
  const startServer = async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/serve-api.ts"], { env: { ...process.env }, stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()));
      child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    });
    return { child, base };
  };

  it("resumes on a new server process with nothing lost or repeated", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id);
    const one = await startServer();
    const abort = new AbortController();
    const res = await openStream(one.base, key, { signal: abort.signal });
    expect(res.status).toBe(200);
    for (let i = 0; i < 10; i++) await emit(workspace.id, "hold.created", null, { i });
    const before = await readUntil(res, abort, (events) => events.length >= 6);

    // The server dies mid-stream (no clean close), and events keep committing while none runs.
    one.child.kill("SIGKILL");
    await new Promise((r) => one.child.once("exit", r));
    for (let i = 10; i < 20; i++) await emit(workspace.id, "hold.created", null, { i });

    const two = await startServer();
    const again = new AbortController();
    const resumed = await openStream(two.base, key, { signal: again.signal, lastEventId: before.events.at(-1)!.position });
    expect(resumed.status).toBe(200);
    const after = await readUntil(resumed, again, (events) => before.events.length + events.length >= 20);
    const all = [...before.events, ...after.events];
    expect(all.map((e) => e.data.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(all.map((e) => e.id)).toEqual(await committedEventIds(workspace.id));
    two.child.kill("SIGTERM");
  });
});
