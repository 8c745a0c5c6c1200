import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { mcpClients } from "../../../test/helpers/mcp-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);




describe("handoffs and notes over MCP", () => {
  it("one agent hands off, the other takes it with next_handoff, notes why and completes; the sender reads the result", async () => {
    const { workspace } = await newWorkspace();
    const planner = await newAgent(workspace.id, "planner");
    const writer = await newAgent(workspace.id, "writer");
    const plannerMcp = await connect((await newKey(workspace.id, { agent_id: planner.id })).key);
    const writerKey = (await newKey(workspace.id, { agent_id: writer.id })).key;
    const writerMcp = await connect(writerKey);

    expect((await call(writerMcp, "next_handoff", { type: "draft.reply" })).structuredContent).toEqual({ handoff: null });
    const sent = await call(plannerMcp, "handoff", { to_agent_id: writer.id, type: "draft.reply", body: { thread: "thr_1" }, idempotency_key: "plan-1" });
    expect(sent.isError).toBeFalsy();
    const again = await call(plannerMcp, "handoff", { to_agent_id: writer.id, type: "draft.reply", body: { thread: "thr_1" }, idempotency_key: "plan-1" });
    expect(again.structuredContent.id).toBe(sent.structuredContent.id);

    const taken = await call(writerMcp, "next_handoff", { type: "draft.reply", worker: "writer-1", idempotency_key: "take-1" });
    const h = taken.structuredContent.handoff;
    expect(h).toMatchObject({ id: sent.structuredContent.id, status: "claimed", body: { thread: "thr_1" }, attempt: 1 });
    // A retried next_handoff with the same key returns the same claim, not a second one.
    expect((await call(writerMcp, "next_handoff", { type: "draft.reply", worker: "writer-1", idempotency_key: "take-1" })).structuredContent.handoff.claim_id).toBe(h.claim_id);

    const noted = await call(writerMcp, "add_audit_note", { action: "agent.drafted_reply", summary: "Drafted a reply in a friendly tone", trace_id: h.trace_id, model: { name: "m1", input_tokens: 10 } });
    expect(noted.structuredContent).toMatchObject({ action: "agent.drafted_reply", agent_id: writer.id, trace_id: h.trace_id });

    const done = await call(writerMcp, "complete_handoff", { handoff_id: h.id, claim_id: h.claim_id, result: { draft: "Hi!" } });
    expect(done.structuredContent).toMatchObject({ status: "completed", result: { draft: "Hi!" } });
    expect((await call(plannerMcp, "get_handoff", { handoff_id: h.id })).structuredContent.result).toEqual({ draft: "Hi!" });
    expect((await call(plannerMcp, "list_handoffs", { status: "completed", role: "sent" })).structuredContent.data).toHaveLength(1);

    const lost = await call(writerMcp, "fail_handoff", { handoff_id: h.id, claim_id: h.claim_id, error: "too late" });
    expect(lost.isError).toBe(true);
    expect(lost.structuredContent.code).toBe("handoff_claim_lost");
    expect((await api(`/api/v1/handoffs/${h.id}`, { key: writerKey })).json.status).toBe("completed");
  });
});
