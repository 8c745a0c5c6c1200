import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../test/helpers/fixtures";
import { setTestEnv } from "../../test/helpers/env";
import { createAgentDraftClient, PermanentFailure, unwrap } from "./index";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { url } = serveApiForTests();

async function pair() {
  const { workspace } = await newWorkspace();
  const planner = await newAgent(workspace.id, "planner");
  const writer = await newAgent(workspace.id, "writer");
  const plannerClient = createAgentDraftClient({ apiKey: (await newKey(workspace.id, { agent_id: planner.id })).key, baseUrl: url() });
  const writerClient = createAgentDraftClient({ apiKey: (await newKey(workspace.id, { agent_id: writer.id })).key, baseUrl: url() });
  return { planner, writer, plannerClient, writerClient };
}

describe("client.handoffs", () => {
  it("work(type, fn): claims, runs with heartbeats on the handoff's trace, completes with fn's result", async () => {
    const { writer, plannerClient, writerClient } = await pair();
    const sent = await plannerClient.handoffs.send({ to_agent_id: writer.id, type: "draft.reply", body: { topic: "launch" } }, { idempotencyKey: "plan-7:draft" });
    expect((await plannerClient.handoffs.send({ to_agent_id: writer.id, type: "draft.reply", body: { topic: "launch" } }, { idempotencyKey: "plan-7:draft" })).id).toBe(sent.id);

    const stop = new AbortController();
    const seen: string[] = [];
    await writerClient.handoffs.work(
      "draft.reply",
      async (h, { client }) => {
        seen.push(h.id);
        // Longer than a third of the TTL: at least one heartbeat keeps the claim.
        await new Promise((r) => setTimeout(r, 1_300));
        await client.audit.note({ action: "agent.drafted", summary: `Drafted about ${(h.body as { topic: string }).topic}`, model: { name: "m", output_tokens: 42 } });
        stop.abort();
        return { draft: "Launch is on." };
      },
      { ttlSeconds: 2, worker: "writer-1", pollMs: 50, signal: stop.signal },
    );
    expect(seen).toEqual([sent.id]);
    const done = unwrap(await plannerClient.GET("/v1/handoffs/{id}", { params: { path: { id: sent.id } } }));
    expect(done).toMatchObject({ status: "completed", attempt: 1, result: { draft: "Launch is on." } });
    // The sender sees the handoff's life; the writer's own note is on the writer's view of the trace.
    const trace = unwrap(await plannerClient.GET("/v1/traces/{trace_id}", { params: { path: { trace_id: sent.trace_id } } }));
    expect(trace.timeline.map((i) => i.data.action)).toEqual(expect.arrayContaining(["handoff.created", "handoff.claimed", "handoff.completed"]));
    const writerTrace = unwrap(await writerClient.GET("/v1/traces/{trace_id}", { params: { path: { trace_id: sent.trace_id } } }));
    expect(writerTrace.timeline.map((i) => i.data.action)).toContain("agent.drafted");
  });

  it("a thrown error fails it for a retry; a PermanentFailure makes it dead at once; nothing pending is null", async () => {
    const { writer, plannerClient, writerClient } = await pair();
    const sent = await plannerClient.handoffs.send({ to_agent_id: writer.id, type: "fetch", body: {}, max_attempts: 3 });
    const first = await writerClient.handoffs.workOnce("fetch", async () => {
      throw new Error("upstream 503");
    });
    expect(first?.error).toBeInstanceOf(Error);
    let h = unwrap(await plannerClient.GET("/v1/handoffs/{id}", { params: { path: { id: sent.id } } }));
    expect(h).toMatchObject({ status: "pending", attempt: 1, last_error: { message: "upstream 503" } });

    await writerClient.handoffs.workOnce("fetch", async () => {
      throw new PermanentFailure("the page is gone", { http: 410 });
    });
    h = unwrap(await plannerClient.GET("/v1/handoffs/{id}", { params: { path: { id: sent.id } } }));
    expect(h).toMatchObject({ status: "dead", dead_reason: "failed", last_error: { message: "the page is gone", details: { http: 410 } } });
    expect(await writerClient.handoffs.workOnce("fetch", async () => 1)).toBeNull();
  });
});
