// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { mcpClients } from "../../../test/helpers/mcp-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { auditEntries, handoffs, messages } from "../../../db/schema";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { traceSchema } from "./schemas";
import { getLeaseOp } from "../leases/operations";
import { onUtcDay } from "../../../test/helpers/clock";

// Times of a day a month ahead: the future, whatever the day the test runs.
const T = onUtcDay(30);

setTestEnv({ AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);

const unique = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}`;

/** A workspace where a planner hands work to a researcher on a trace the planner chose; mallory is another agent of the workspace. */
async function graph() {
  const { workspace } = await newWorkspace();
  const [planner, researcher, mallory] = await Promise.all(["planner", "researcher", "mallory"].map((n) => newAgent(workspace.id, n)));
  const key = async (agentId: string) => (await newKey(workspace.id, { agent_id: agentId })).key;
  const [plannerKey, researcherKey, malloryKey] = await Promise.all([key(planner!.id), key(researcher!.id), key(mallory!.id)]);
  const traceId = unique("trace-secret");
  const root = await api("/api/v1/handoffs", { key: plannerKey, headers: { "x-trace-id": traceId }, body: { to_agent_id: researcher!.id, type: "plan", body: { secret: 1 } } });
  expect(root.status).toBe(201);
  return { workspace, planner: planner!, researcher: researcher!, mallory: mallory!, plannerKey, researcherKey, malloryKey, traceId, root: root.json };
}

const note = { action: "agent.looked", summary: "Looked at it" };

describe("traces belong to their workspace and their agents", () => {
  it("an agent outside a graph can neither attach a handoff or a note to its trace nor read it: 404, and nothing is written", async () => {
    const g = await graph();
    const headers = { "x-trace-id": g.traceId };
    const handoff = { to_agent_id: g.planner.id, type: "inject", body: {} };
    // By the trace id seen in an event, by the correlation id, or by the handoff's own id.
    expect((await api("/api/v1/handoffs", { key: g.malloryKey, headers, body: handoff })).status).toBe(404);
    expect((await api("/api/v1/handoffs", { key: g.malloryKey, body: { ...handoff, correlation_id: g.root.correlation_id } })).status).toBe(404);
    expect((await api("/api/v1/handoffs", { key: g.malloryKey, headers: { "x-trace-id": g.root.id }, body: handoff })).status).toBe(404);
    expect((await api("/api/v1/audit/entries", { key: g.malloryKey, body: { ...note, trace_id: g.traceId } })).status).toBe(404);
    expect((await api("/api/v1/audit/entries", { key: g.malloryKey, headers, body: note })).status).toBe(404);
    for (const id of [g.traceId, g.root.id, g.root.correlation_id]) {
      const read = await api(`/api/v1/traces/${id}`, { key: g.malloryKey });
      expect(read.status).toBe(404);
      expect(read.json.detail).not.toContain("handoff");
    }
    const db = await getDb();
    expect(await db.select().from(handoffs).where(eq(handoffs.workspaceId, g.workspace.id))).toHaveLength(1);
    expect(await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, g.workspace.id), eq(auditEntries.agentId, g.mallory.id), eq(auditEntries.action, note.action)))).toHaveLength(0);

    // The agents of the graph still attach and read; a workspace-wide key reads it all.
    expect((await api("/api/v1/audit/entries", { key: g.researcherKey, body: { ...note, trace_id: g.traceId, resource: { type: "handoff", id: g.root.id } } })).status).toBe(201);
    const sub = await api("/api/v1/handoffs", { key: g.researcherKey, headers, body: { to_agent_id: g.mallory.id, type: "sub", body: {} } });
    expect(sub.status).toBe(201);
    expect((await api(`/api/v1/traces/${g.traceId}`, { key: g.plannerKey })).status).toBe(200);
    expect((await api(`/api/v1/traces/${g.traceId}`, { key: (await newKey(g.workspace.id)).key })).json.handoffs).toHaveLength(2);
    // Handed work on the trace, mallory is in its graph now: it reads and attaches.
    expect((await api(`/api/v1/traces/${g.traceId}`, { key: g.malloryKey })).json.handoffs).toHaveLength(2);
    expect((await api("/api/v1/audit/entries", { key: g.malloryKey, body: { ...note, trace_id: g.traceId } })).status).toBe(201);
  });

  it("a trace another agent started is not found to the others, whatever they send, until they are in its graph", async () => {
    const { workspace } = await newWorkspace();
    const [a, b, c] = await Promise.all(["a", "b", "c"].map((n) => newAgent(workspace.id, n)));
    const [aKey, bKey] = (await Promise.all([a!, b!].map(async (x) => (await newKey(workspace.id, { agent_id: x.id })).key))) as [string, string];
    const traceId = unique("trace-notes");
    // A note starts the trace: it is a's now.
    expect((await api("/api/v1/audit/entries", { key: aKey, body: { ...note, trace_id: traceId } })).status).toBe(201);
    expect((await api(`/api/v1/traces/${traceId}`, { key: aKey })).status).toBe(200);
    expect((await api(`/api/v1/traces/${traceId}`, { key: bKey })).status).toBe(404);
    expect((await api("/api/v1/audit/entries", { key: bKey, body: { ...note, trace_id: traceId } })).status).toBe(404);
    expect((await api("/api/v1/handoffs", { key: bKey, headers: { "x-trace-id": traceId }, body: { to_agent_id: c!.id, type: "t", body: {} } })).status).toBe(404);
    // The same trace id in another workspace is another trace.
    const { workspace: other } = await newWorkspace();
    const stranger = await newAgent(other.id, "stranger");
    const strangerKey = (await newKey(other.id, { agent_id: stranger.id })).key;
    expect((await api("/api/v1/audit/entries", { key: strangerKey, body: { ...note, trace_id: traceId } })).status).toBe(201);
    const theirs = traceSchema.parse((await api(`/api/v1/traces/${traceId}`, { key: strangerKey })).json);
    expect(theirs.timeline.every((i) => i.agent_id === stranger.id)).toBe(true);
    // a brings b in by handing off to it on the trace.
    expect((await api("/api/v1/handoffs", { key: aKey, headers: { "x-trace-id": traceId }, body: { to_agent_id: b!.id, type: "t", body: {} } })).status).toBe(201);
    expect((await api(`/api/v1/traces/${traceId}`, { key: bKey })).status).toBe(200);
  });

  it("of two agents racing to start the same trace id, exactly one owns it", async () => {
    const { workspace } = await newWorkspace();
    const [a, b, c] = await Promise.all(["a", "b", "c"].map((n) => newAgent(workspace.id, n)));
    const [aKey, bKey] = (await Promise.all([a!, b!].map(async (x) => (await newKey(workspace.id, { agent_id: x.id })).key))) as [string, string];
    for (let round = 0; round < 4; round++) {
      const traceId = unique("trace-race");
      const send = (key: string) => api("/api/v1/handoffs", { key, headers: { "x-trace-id": traceId }, body: { to_agent_id: c!.id, type: "race", body: {} } });
      const sendNote = (key: string) => api("/api/v1/audit/entries", { key, body: { ...note, trace_id: traceId } });
      const results = await Promise.all(round % 2 ? [send(aKey), send(bKey)] : [send(aKey), sendNote(bKey)]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 404]);
    }
  });

  it("a refused handoff or note claims no trace", async () => {
    const { workspace } = await newWorkspace();
    const [a, b] = await Promise.all(["a", "b"].map((n) => newAgent(workspace.id, n)));
    const [aKey, bKey] = (await Promise.all([a!, b!].map(async (x) => (await newKey(workspace.id, { agent_id: x.id })).key))) as [string, string];
    const traceId = unique("trace-refused");
    const elsewhere = await newAgent((await newWorkspace()).workspace.id, "elsewhere");
    const bad = await api("/api/v1/handoffs", { key: aKey, headers: { "x-trace-id": traceId }, body: { to_agent_id: elsewhere.id, type: "t", body: {} } });
    expect(bad.json.errors[0].field).toBe("to_agent_id");
    expect((await api("/api/v1/audit/entries", { key: aKey, body: { ...note, trace_id: traceId, resource: { type: "handoff", id: "hof_nothing" } } })).status).toBe(404);
    // Nobody started it: b may.
    expect((await api("/api/v1/audit/entries", { key: bKey, body: { ...note, trace_id: traceId } })).status).toBe(201);
  });

  it("a note is its own agent's and names only handoffs of that agent's graph", async () => {
    const g = await graph();
    const admin = (await newKey(g.workspace.id)).key;
    // An agent-bound key notes as its agent only.
    expect((await api("/api/v1/audit/entries", { key: g.malloryKey, body: { ...note, agent_id: g.planner.id } })).status).toBe(404);
    // Another agent's handoff, a handoff of no graph, another workspace's: not found, for agent-bound and workspace-wide keys alike.
    expect((await api("/api/v1/audit/entries", { key: g.malloryKey, body: { ...note, resource: { type: "handoff", id: g.root.id } } })).status).toBe(404);
    expect((await api("/api/v1/audit/entries", { key: admin, body: { ...note, agent_id: g.mallory.id, resource: { type: "handoff", id: g.root.id } } })).status).toBe(404);
    expect((await api("/api/v1/audit/entries", { key: admin, body: { ...note, agent_id: g.mallory.id, resource: { type: "handoff", id: "hof_nothing" } } })).status).toBe(404);
    const elsewhere = await graph();
    expect((await api("/api/v1/audit/entries", { key: g.researcherKey, body: { ...note, resource: { type: "handoff", id: elsewhere.root.id } } })).status).toBe(404);
    // The sender and the recipient name it; a workspace-wide key names it for either.
    expect((await api("/api/v1/audit/entries", { key: g.researcherKey, body: { ...note, resource: { type: "handoff", id: g.root.id } } })).status).toBe(201);
    expect((await api("/api/v1/audit/entries", { key: admin, body: { ...note, agent_id: g.planner.id, resource: { type: "handoff", id: g.root.id } } })).json.agent_id).toBe(g.planner.id);
    const db = await getDb();
    expect(await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, g.workspace.id), eq(auditEntries.agentId, g.mallory.id), eq(auditEntries.action, note.action)))).toHaveLength(0);
  });

  it("over MCP too: no handoff or note on another agent's graph", async () => {
    const g = await graph();
    const mcp = await connect(g.malloryKey);
    const byCorrelation = await call(mcp, "handoff", { to_agent_id: g.planner.id, type: "inject", body: {}, correlation_id: g.root.correlation_id });
    expect(byCorrelation.isError).toBe(true);
    expect(byCorrelation.structuredContent.code).toBe("not_found");
    const onTrace = await call(mcp, "add_audit_note", { ...note, trace_id: g.traceId });
    expect(onTrace.structuredContent.code).toBe("not_found");
    const onHandoff = await call(mcp, "add_audit_note", { ...note, resource: { type: "handoff", id: g.root.id } });
    expect(onHandoff.structuredContent.code).toBe("not_found");
    const asOther = await call(mcp, "add_audit_note", { ...note, agent_id: g.planner.id });
    expect(asOther.structuredContent.code).toBe("not_found");
    const research = await connect(g.researcherKey);
    expect((await call(research, "add_audit_note", { ...note, trace_id: g.traceId, resource: { type: "handoff", id: g.root.id } })).isError).toBeFalsy();
    const db = await getDb();
    expect(await db.select().from(handoffs).where(eq(handoffs.workspaceId, g.workspace.id))).toHaveLength(1);
  });

  it("a trace shows only the kinds of record the key's scopes read, leases included", async () => {
    const a = await newAgentInbox(api);
    const ws = a.workspace.id;
    const b = await newAgent(ws, "b");
    const full = (await newKey(ws, { agent_id: a.agent.id })).key;
    const traceId = unique("trace-kinds");
    const headers = { "x-trace-id": traceId };
    expect((await api("/api/v1/handoffs", { key: full, headers, body: { to_agent_id: b.id, type: "t", body: {} } })).status).toBe(201);
    expect((await api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key, headers, body: { to: ["someone@example.com"], subject: "Hi", text: "Hello" } })).status).toBe(201);
    const cal = await createCalendar(operatorActor(ws), { name: "room" });
    const hold = { start_time: T(10), end_time: T(11), hold_ttl_seconds: 300 };
    expect((await api(`/api/v1/calendars/${cal.id}/holds`, { key: full, headers, body: hold })).status).toBe(201);
    const lease = await api("/api/v1/leases", { key: full, headers, body: { resource: unique("deploy"), ttl_seconds: 60 } });
    expect(lease.status).toBe(201);

    const all = traceSchema.parse((await api(`/api/v1/traces/${traceId}`, { key: full })).json);
    expect(Object.keys(all.counts).sort()).toEqual(["audit_entry", "handoff", "hold", "lease", "message"]);
    expect(all.timeline.find((i) => i.kind === "lease")).toMatchObject({ id: lease.json.id, agent_id: a.agent.id, status: "active" });

    const handoffsOnly = (await newKey(ws, { agent_id: a.agent.id, scopes: ["handoffs"] })).key;
    const seen = traceSchema.parse((await api(`/api/v1/traces/${traceId}`, { key: handoffsOnly })).json);
    // Leases are read with the scope of their own endpoints (none, today).
    const handoffKinds = ["handoff", ...(getLeaseOp.scope && getLeaseOp.scope !== "handoffs" ? [] : ["lease"])];
    expect(Object.keys(seen.counts).sort()).toEqual(handoffKinds);
    expect(seen.timeline.every((i) => handoffKinds.includes(i.kind))).toBe(true);
    const wide = (await newKey(ws, { scopes: ["handoffs", "mail"] })).key;
    const wideSeen = traceSchema.parse((await api(`/api/v1/traces/${traceId}`, { key: wide })).json);
    expect(Object.keys(wideSeen.counts).sort()).toEqual([...handoffKinds, "message"].sort());
  });
});

describe("local delivery and traces", () => {
  it("a copy in another workspace never carries the sender's trace id; one in the sender's carries it only if the sender may use it", async () => {
    const a = await newAgentInbox(api);
    const x = await newAgentInbox(api);
    const db = await getDb();
    const copyIn = async (workspaceId: string, subject: string) => {
      const [m] = await db.select().from(messages).where(and(eq(messages.workspaceId, workspaceId), eq(messages.direction, "inbound"), eq(messages.subject, subject)));
      return m!;
    };
    const traceId = unique("trace-cross");
    const sent = await api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key, headers: { "x-trace-id": traceId }, body: { to: [x.inbox.address], subject: "Hi", text: "Hello" } });
    expect(sent.status).toBe(201);
    const theirs = await copyIn(x.workspace.id, "Hi");
    expect(theirs.traceId).toBeTruthy();
    expect(theirs.traceId).not.toBe(traceId);
    expect(sent.json.trace_id).toBe(traceId);

    // Within a workspace: the sender's own trace is carried; another agent's graph is not.
    const ws = a.workspace.id;
    const b = await newAgent(ws, "b");
    const bKey = (await newKey(ws, { agent_id: b.id, scopes: ["mail"] })).key;
    const bInbox = (await api("/api/v1/inboxes", { key: bKey, body: { username: unique("desk") } })).json;
    const own = unique("trace-own");
    await api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key, headers: { "x-trace-id": own }, body: { to: [bInbox.address], subject: "One", text: "1" } });
    expect((await copyIn(ws, "One")).traceId).toBe(own);
    const [p, r] = await Promise.all([newAgent(ws, "p"), newAgent(ws, "r")]);
    const foreign = unique("trace-foreign");
    const pKey = (await newKey(ws, { agent_id: p.id })).key;
    expect((await api("/api/v1/handoffs", { key: pKey, headers: { "x-trace-id": foreign }, body: { to_agent_id: r.id, type: "t", body: {} } })).status).toBe(201);
    const injected = await api(`/api/v1/inboxes/${a.inbox.id}/messages`, { key: a.key, headers: { "x-trace-id": foreign }, body: { to: [bInbox.address], subject: "Two", text: "2" } });
    expect(injected.status).toBe(201);
    const copy = await copyIn(ws, "Two");
    expect(copy.traceId).not.toBe(foreign);
    const read = (await api(`/api/v1/traces/${foreign}`, { key: (await newKey(ws)).key })).json;
    expect(read.timeline.some((i: { id: string }) => i.id === copy.id)).toBe(false);
  });
});
