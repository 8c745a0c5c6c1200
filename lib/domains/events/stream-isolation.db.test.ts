// @suite pooled
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { openStream, sseBlocks } from "../../../test/helpers/sse";
import { openTransaction } from "../../../test/helpers/open-transaction";
import { getDb } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { operatorActor } from "../../platform/actor";
import { resetEnvCache } from "../../platform/config/env";
import { emitEvent } from "../../platform/events/emit-event";
import { readEvents, type StreamFilter } from "./read-events";

const LIMITS = { EVENTS_HEARTBEAT_SECONDS: "1", EVENTS_POLL_INTERVAL_MS: "100" };
Object.assign(process.env, LIMITS);
resetEnvCache();
afterAll(() => {
  for (const k of Object.keys(LIMITS)) delete process.env[k];
  resetEnvCache();
});

const { url } = serveApiForTests();
const onPostgres = process.env.AGENTDRAFT_TEST_DB === "postgres";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const emit = (workspaceId: string, data: Record<string, unknown>) =>
  transaction((tx) => emitEvent(tx, operatorActor(workspaceId), { type: "hold.created", data }));

/** Transactions left open elsewhere: one in no workspace at all, and one that wrote an event in workspace `other`. */
async function openElsewhere(other: string) {
  const idle = await openTransaction(["select txid_current()"]);
  const writing = await openTransaction([
    `select agentdraft_emit($1, 'hold.created', null, '{"open":true}'::jsonb, null)`,
    [other],
  ]);
  const release = async () => {
    await idle();
    await writing();
  };
  onTestFinished(release);
  return release;
}

async function committedIds(workspaceId: string): Promise<string[]> {
  const db = await getDb();
  const { rows } = await db.execute<{ id: string }>(sql`select id from webhook_events where workspace_id = ${workspaceId}`);
  return rows.map((r) => r.id).sort();
}

describe.runIf(onPostgres)("no transaction outside a workspace holds back its stream", () => {
  it("GET /v1/events and readEvents give a committed event while transactions elsewhere stay open", async () => {
    const { workspace: a } = await newWorkspace();
    const { workspace: b } = await newWorkspace();
    const { key } = await newKey(a.id);
    await openElsewhere(b.id);

    const abort = new AbortController();
    const res = await openStream(url(), key, { signal: abort.signal });
    expect(res.status).toBe(200);
    const filter: StreamFilter = { workspaceId: a.id, agentId: null, types: ["hold.created"] };
    const start = (await readEvents(filter, null)).next;
    await emit(a.id, { marker: "a-1" });

    // The direct read sees it at once (no waiting on the open transactions' end).
    const read = await readEvents(filter, start);
    expect(read.events.map((e) => e.payload.data.marker)).toEqual(["a-1"]);

    // And the SSE stream delivers it well before the open transactions end (they never do in this test).
    const timer = setTimeout(() => abort.abort(), 15_000);
    let seen = false;
    try {
      for await (const block of sseBlocks(res.body!)) {
        if (block.data && JSON.parse(block.data).data.marker === "a-1") {
          seen = true;
          break;
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
    expect(seen).toBe(true);
  });
});

describe("a reader polling with cursors while writers race", () => {
  it("sees every committed event once, in one stable order, none skipped, while another workspace's transaction stays open", async () => {
    const { workspace: a } = await newWorkspace();
    const { workspace: b } = await newWorkspace();
    // On Postgres a transaction in B and one in no workspace stay open throughout (PGlite has one connection).
    const release = onPostgres ? await openElsewhere(b.id) : async () => {};
    const filter: StreamFilter = { workspaceId: a.id, agentId: null, types: ["hold.created"] };
    let position = (await readEvents(filter, null)).next;
    const seen: string[] = [];
    const positions: bigint[] = [];
    let writing = true;
    const reader = (async () => {
      for (let last = false; ; ) {
        const { events, next } = await readEvents(filter, position, 7);
        for (const e of events) {
          seen.push(e.payload.id);
          positions.push(BigInt(e.position));
        }
        position = next;
        if (last) break;
        if (!writing) last = true;
        await sleep(2);
      }
    })();
    const writers = Array.from({ length: 10 }, async (_, w) => {
      for (let i = 0; i < 8; i++) {
        await transaction(async (tx) => {
          await emitEvent(tx, operatorActor(a.id), { type: "hold.created", data: { w, i } });
          await sleep(Math.random() * 15);
          // Another workspace writes too, in its own transactions.
          if (i % 2 === 0) await emitEvent(tx, operatorActor(b.id), { type: "hold.created", data: { w, i } });
          if (i % 4 === 3) throw new Error("roll back");
        }).catch((err: Error) => {
          if (err.message !== "roll back") throw err;
        });
      }
    });
    await Promise.all(writers);
    writing = false;
    await reader;

    // All of A's committed events were read before B's open transaction ended.
    const committed = await committedIds(a.id);
    expect(committed.length).toBe(10 * 6); // i = 3 and 7 roll back
    expect(new Set(seen).size).toBe(seen.length); // none twice
    expect([...seen].sort()).toEqual(committed); // none skipped
    for (let i = 1; i < positions.length; i++) expect(positions[i]! > positions[i - 1]!).toBe(true);
    // The order is stable: a reader from the start later sees the same order.
    const again: string[] = [];
    for (let p: { position: string } | null = { position: "0" }; p; ) {
      const { events, next, more } = await readEvents(filter, p, 13);
      again.push(...events.map((e) => e.payload.id));
      p = more ? next : null;
    }
    expect(again).toEqual(seen);
    await release();
  });
});
