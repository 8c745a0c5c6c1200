// @suite moved-clock
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { traceSchema } from "./schemas";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();

describe("a trace's execution graph", () => {
  it("rebuilds a three-level graph after the first worker crashed, without doing anything twice", async () => {
    const { workspace } = await newWorkspace();
    const [planner, researcher, writer] = await Promise.all(["planner", "researcher", "writer"].map((n) => newAgent(workspace.id, n)));
    const key = async (agentId: string) => (await newKey(workspace.id, { agent_id: agentId })).key;
    const [plannerKey, researcherKey, writerKey] = await Promise.all([key(planner!.id), key(researcher!.id), key(writer!.id)]);
    const cal = await createCalendar(operatorActor(workspace.id), { name: "launch room" });
    const trace = { "x-trace-id": "trace-launch-42" };

    const root = (await api("/api/v1/handoffs", { key: plannerKey, headers: trace, body: { to_agent_id: researcher!.id, type: "launch.plan", body: { product: "v2" } } })).json;

    // Worker 1 claims the root, hands a sub-task on (keyed by its step), then crashes.
    const w1 = (await api(`/api/v1/handoffs/${root.id}/claim`, { key: researcherKey, body: { ttl_seconds: 30, worker: "w1" } })).json;
    const step = { "idempotency-key": `${root.id}:draft` };
    const subBody = { to_agent_id: writer!.id, type: "launch.draft", body: { outline: true }, parent_id: root.id };
    const child = (await api("/api/v1/handoffs", { key: researcherKey, headers: step, body: subBody })).json;
    expect(child).toMatchObject({ parent_id: root.id, correlation_id: root.id, trace_id: "trace-launch-42" });
    await (await getDb()).execute(sql`update handoffs set claim_expires_at = now() - interval '1 second' where id = ${root.id}`);

    // Worker 2 retakes the root and rebuilds the graph from the trace: the sub-task exists already.
    const w2 = (await api(`/api/v1/handoffs/${root.id}/claim`, { key: researcherKey, body: { ttl_seconds: 30, worker: "w2" } })).json;
    expect(w2.attempt).toBe(2);
    const seen = traceSchema.parse((await api(`/api/v1/traces/${root.correlation_id}`, { key: researcherKey })).json);
    expect(seen.handoffs.find((h) => h.id === root.id)!.children).toEqual([child.id]);
    // Re-sending its step with the same key is the same handoff, not a second one.
    expect((await api("/api/v1/handoffs", { key: researcherKey, headers: step, body: subBody })).json.id).toBe(child.id);

    // The writer works the sub-task, hands a third level on, places a hold and notes why.
    const wc = (await api(`/api/v1/handoffs/${child.id}/claim`, { key: writerKey, body: { worker: "writer-1" } })).json;
    const grandchild = (await api("/api/v1/handoffs", { key: writerKey, body: { to_agent_id: planner!.id, type: "launch.review", body: {}, parent_id: child.id } })).json;
    const hold = await api(`/api/v1/calendars/${cal.id}/holds`, {
      key: writerKey,
      headers: { "x-trace-id": wc.trace_id },
      body: { start_time: T(10), end_time: T(11), hold_ttl_seconds: 300 },
    });
    expect(hold.status).toBe(201);
    const note = await api("/api/v1/audit/entries", {
      key: writerKey,
      body: { action: "agent.held_room", summary: "Held the launch room for the review the plan asks for", trace_id: wc.trace_id, resource: { type: "hold", id: hold.json.id } },
    });
    expect(note.status).toBe(201);
    const wg = (await api(`/api/v1/handoffs/${grandchild.id}/claim`, { key: plannerKey, body: {} })).json;
    await api(`/api/v1/handoffs/${grandchild.id}/complete`, { key: plannerKey, body: { claim_id: wg.claim_id, result: { approved: true } } });
    await api(`/api/v1/handoffs/${child.id}/complete`, { key: writerKey, body: { claim_id: wc.claim_id, result: { draft: "…" } } });
    // Worker 1's late result is refused; worker 2 completes the root once.
    expect((await api(`/api/v1/handoffs/${root.id}/complete`, { key: researcherKey, body: { claim_id: w1.claim_id } })).json.code).toBe("handoff_claim_lost");
    expect((await api(`/api/v1/handoffs/${root.id}/complete`, { key: researcherKey, body: { claim_id: w2.claim_id, result: { plan: "done" } } })).status).toBe(200);

    const byTrace = await api("/api/v1/traces/trace-launch-42", { key: (await newKey(workspace.id)).key });
    expect(byTrace.status).toBe(200);
    const t = traceSchema.strict().parse(byTrace.json);
    expect(t.roots).toEqual([root.id]);
    expect(t.handoffs.map((h) => [h.id, h.depth, h.status])).toEqual([
      [root.id, 0, "completed"],
      [child.id, 1, "completed"],
      [grandchild.id, 2, "completed"],
    ]);
    const actions = t.timeline.filter((i) => i.kind === "audit_entry").map((i) => i.data.action);
    expect(actions.filter((a) => a === "handoff.created")).toHaveLength(3);
    expect(actions.filter((a) => a === "handoff.completed")).toHaveLength(3);
    expect(actions).toContain("handoff.claim_expired");
    expect(actions).toContain("agent.held_room");
    expect(actions).toContain("hold.created");
    expect(t.timeline.find((i) => i.kind === "hold")).toMatchObject({ id: hold.json.id, agent_id: writer!.id });
    const times = t.timeline.map((i) => i.at);
    expect(times).toEqual([...times].sort());

    // The same graph by correlation id, and by a handoff's own id.
    const byCorrelation = (await api(`/api/v1/traces/${root.correlation_id}`, { key: plannerKey })).json;
    expect(byCorrelation.handoffs.map((h: { id: string }) => h.id)).toEqual([root.id, child.id, grandchild.id]);

    // An agent-bound key with a part in the graph sees all of it, and only its own agent's other records; another workspace sees nothing.
    const writerView = (await api("/api/v1/traces/trace-launch-42", { key: writerKey })).json;
    expect(writerView.handoffs.map((h: { id: string }) => h.id)).toEqual([root.id, child.id, grandchild.id]);
    type Item = { agent_id: string | null; kind: string; data: { action?: string } };
    const ownOrGraph = (i: Item) => i.kind === "handoff" || i.agent_id === writer!.id || (i.kind === "audit_entry" && String(i.data.action).startsWith("handoff."));
    expect(writerView.timeline.every(ownOrGraph)).toBe(true);
    expect(writerView.timeline.some((i: Item) => i.data.action === "agent.held_room")).toBe(true);
    const { workspace: other } = await newWorkspace();
    expect((await api("/api/v1/traces/trace-launch-42", { key: (await newKey(other.id)).key })).status).toBe(404);
    expect((await api("/api/v1/traces/no-such-trace", { key: plannerKey })).status).toBe(404);
    expect((await api("/api/v1/traces/bad%20trace", { key: plannerKey })).status).toBe(404);
  });
});
