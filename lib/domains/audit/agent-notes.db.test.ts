// @suite moved-clock
import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { verifyChain } from "../../platform/audit/verify-chain";
import { agentNoteEntrySchema } from "./note-schemas";
import { nextUtcWeekday, onUtcDay } from "../../../test/helpers/clock";

// A Tuesday ahead, as the note says, whatever the day the test runs.
const TUESDAY = onUtcDay(0, nextUtcWeekday(2, 7).getTime());

const { api } = serveApiForTests();

async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "scheduler");
  const agentKey = (await newKey(workspace.id, { agent_id: agent.id })).key;
  const adminKey = (await newKey(workspace.id)).key;
  return { workspace, agent, agentKey, adminKey };
}

const note = {
  action: "agent.booked_meeting",
  summary: "Booked Tuesday 15:00 because Sam's email asked for Tuesday afternoon",
  trigger: { type: "email.received", message_id: "msg_01" },
  context: { requested_day: "Tuesday", window: "afternoon" },
  outside_call: { service: "google-calendar", request: { start: TUESDAY(15) }, confirmation: { event_id: "g-123", status: "confirmed" } },
  model: { name: "gpt-x", prompt_version: "scheduler-v7", input_tokens: 1234, output_tokens: 88 },
};

describe("agent notes in the audit trail", () => {
  it("records why an agent acted, chained like every entry, on the trace of its header", async () => {
    const { workspace, agent, agentKey } = await setup();
    const res = await api("/api/v1/audit/entries", { key: agentKey, body: note, headers: { "x-trace-id": "trace-booking-1" } });
    expect(res.status).toBe(201);
    const entry = agentNoteEntrySchema.strict().parse(res.json);
    expect(entry).toMatchObject({
      action: "agent.booked_meeting",
      agent_id: agent.id,
      actor: { type: "key" },
      trace_id: "trace-booking-1",
      resource: { type: "agent", id: agent.id },
      summary: { note: note.summary, trigger: note.trigger, context: note.context, outside_call: note.outside_call, model: note.model },
    });
    const listed = await api(`/api/v1/audit?trace_id=trace-booking-1`, { key: agentKey });
    expect(listed.json.data.map((e: { id: string }) => e.id)).toEqual([entry.id]);
    expect(listed.json.data[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await verifyChain(workspace.id)).valid).toBe(true);
  });

  it("a workspace-wide key names the agent; an agent-bound key cannot note for another", async () => {
    const { workspace, agent, agentKey, adminKey } = await setup();
    const other = await newAgent(workspace.id, "other");
    expect((await api("/api/v1/audit/entries", { key: adminKey, body: note })).json.errors[0].field).toBe("agent_id");
    // A note names a handoff of its agent's own graph only (lib/domains/traces/trace-ownership.db.test.ts has the rest).
    const handoff = (await api("/api/v1/handoffs", { key: agentKey, body: { to_agent_id: other.id, type: "ask", body: {} } })).json;
    const traceId = `t-2-${handoff.id}`;
    const named = await api("/api/v1/audit/entries", { key: adminKey, body: { ...note, agent_id: agent.id, trace_id: traceId, resource: { type: "handoff", id: handoff.id } } });
    expect(named.status).toBe(201);
    expect(named.json).toMatchObject({ agent_id: agent.id, trace_id: traceId, resource: { type: "handoff", id: handoff.id } });
    expect((await api("/api/v1/audit/entries", { key: adminKey, body: { ...note, agent_id: agent.id, resource: { type: "handoff", id: "hof_x" } } })).status).toBe(404);
    expect((await api("/api/v1/audit/entries", { key: agentKey, body: { ...note, agent_id: other.id } })).status).toBe(404);
  });

  it("refuses system action names, other prefixes and oversized notes with a 400, and writes nothing", async () => {
    const { agentKey } = await setup();
    const bad: Record<string, unknown>[] = [
      { ...note, action: "agent.created" },
      { ...note, action: "hold.committed" },
      { ...note, action: "agent." },
      { ...note, summary: "" },
      { ...note, summary: "x".repeat(1001) },
      { ...note, context: { blob: "x".repeat(17 * 1024) } },
      { ...note, model: { name: "m", input_tokens: -1 } },
    ];
    for (const body of bad) {
      const res = await api("/api/v1/audit/entries", { key: agentKey, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json.code).toBe("validation_failed");
    }
    expect((await api("/api/v1/audit?action=agent.booked_meeting", { key: agentKey })).json.data).toEqual([]);
  });
});
