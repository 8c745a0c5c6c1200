// @suite pooled
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { serveApiForTests } from "../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../test/helpers/fixtures";
import { setTestEnv } from "../../test/helpers/env";
import { getDb } from "../../db/client";
import { transaction } from "../../db/transaction";
import { operatorActor } from "../../lib/platform/actor";
import { emitEvent } from "../../lib/platform/events/emit-event";
import { AgentDraftError, createAgentDraftClient, type AgentDraftEvent } from "./index";

// Connections end after 2 s, so the iterator must reconnect (with Last-Event-ID) to see them all.
setTestEnv({ EVENTS_STREAM_MAX_SECONDS: "2", EVENTS_HEARTBEAT_SECONDS: "1", EVENTS_POLL_INTERVAL_MS: "100" });
const { url } = serveApiForTests();

const emit = (workspaceId: string, i: number, agentId: string | null = null) =>
  transaction((tx) => emitEvent(tx, operatorActor(workspaceId), { type: "hold.created", agentId, data: { i } }));

describe("client.events()", () => {
  it("yields every event once, in order, reconnecting with Last-Event-ID as connections end", { timeout: 120_000 }, async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const { key } = await newKey(workspace.id, { agent_id: agent.id });
    let connections = 0;
    const client = createAgentDraftClient({
      apiKey: key,
      baseUrl: url(),
      fetch: (r) => {
        if (new URL(r.url).pathname === "/api/v1/events") connections++;
        return fetch(r);
      },
    });
    await emit(workspace.id, -1, agent.id); // before `since`: not yielded
    await new Promise((r) => setTimeout(r, 20));
    // From a fixed time, not "from now on": the writer may commit its first event before the
    // first connection is read on a busy machine, and "now" would then begin after it.
    const since = new Date();
    const received: AgentDraftEvent[] = [];
    const writer = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 30; i++) {
        await emit(workspace.id, i, agent.id);
        await emit(workspace.id, 1000 + i); // another agent's: never seen by this key
        await new Promise((r) => setTimeout(r, 150)); // spans two or three connections
      }
    })();
    for await (const event of client.events({ types: ["hold.created"], since })) {
      received.push(event);
      if (received.length === 30) break;
    }
    await writer;
    expect(received.map((e) => e.data.i)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(new Set(received.map((e) => e.id)).size).toBe(30);
    expect(received.every((e) => e.type === "hold.created" && /^\d+$/.test(e.position))).toBe(true);
    expect(connections).toBeGreaterThanOrEqual(2);

    // A stored position resumes later, exactly after it.
    const resumed: AgentDraftEvent[] = [];
    for await (const event of client.events({ lastEventId: received[19]!.position })) {
      resumed.push(event);
      if (resumed.length === 10) break;
    }
    expect(resumed.map((e) => e.id)).toEqual(received.slice(20).map((e) => e.id));

    // Breaking out closed the connections: the key holds no stream slot.
    const db = await getDb();
    await expect
      .poll(async () => (await db.execute<{ n: number }>(sql`select count(*)::int as n from event_stream_slots s join api_keys k on k.id = s.key_id where k.workspace_id = ${workspace.id}`)).rows[0]!.n, { timeout: 60_000 })
      .toBe(0);
  });

  it("throws an AgentDraftError when the key may not stream", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id, { scopes: ["audit"] });
    const client = createAgentDraftClient({ apiKey: key, baseUrl: url() });
    const error = await (async () => {
      for await (const _ of client.events()) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentDraftError);
    expect((error as AgentDraftError).code).toBe("insufficient_scope");
  });
});
