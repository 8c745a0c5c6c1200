// @suite moved-clock
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { onUtcDay } from "../../../test/helpers/clock";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();

const T = onUtcDay(30);
const SECRET_METADATA = { customer: "ACME merger call", phone: "+1 555 0100" };

/** Two agents on one calendar: A holds one slot and has committed another; B is a neighbour. */
async function setup() {
  const { workspace } = await newWorkspace();
  const cal = await createCalendar(operatorActor(workspace.id), { name: "board room" });
  const a = await newAgent(workspace.id, "agent-a");
  const b = await newAgent(workspace.id, "agent-b");
  const { key: keyA } = await newKey(workspace.id, { agent_id: a.id });
  const { key: keyB } = await newKey(workspace.id, { agent_id: b.id });
  const { key: wide } = await newKey(workspace.id);
  const held = await api(`/api/v1/calendars/${cal.id}/holds`, {
    key: keyA,
    body: { start_time: T(9), end_time: T(10), priority: 60, hold_ttl_seconds: 600, metadata: SECRET_METADATA },
  });
  expect(held.status).toBe(201);
  const toCommit = await api(`/api/v1/calendars/${cal.id}/holds`, {
    key: keyA,
    body: { start_time: T(11), end_time: T(12), priority: 60, hold_ttl_seconds: 600, metadata: SECRET_METADATA },
  });
  const committed = await api(`/api/v1/holds/${toCommit.json.id}/commit`, { key: keyA, method: "POST" });
  expect(committed.status).toBe(200);
  return { workspace, cal, a, b, keyA, keyB, wide, hold: held.json, eventId: committed.json.event_ids[0] as string };
}

describe("an agent-bound key does not read another agent's holds and events", () => {
  it("GET /v1/holds/{id} is 404, and the lists leave them out; the owner and a workspace-wide key see them", async () => {
    const { cal, keyA, keyB, wide, hold, eventId } = await setup();

    const other = await api(`/api/v1/holds/${hold.id}`, { key: keyB });
    expect(other.status).toBe(404);
    expect(other.text).not.toContain("ACME");
    expect((await api(`/api/v1/holds/${hold.id}`, { key: keyA })).json.metadata).toEqual(SECRET_METADATA);
    expect((await api(`/api/v1/holds/${hold.id}`, { key: wide })).json.metadata).toEqual(SECRET_METADATA);

    const listB = await api(`/api/v1/holds?calendar_id=${cal.id}`, { key: keyB });
    expect(listB.status).toBe(200);
    expect(listB.json.data).toEqual([]);
    expect((await api(`/api/v1/holds?calendar_id=${cal.id}`, { key: keyA })).json.data).toHaveLength(2);
    expect((await api(`/api/v1/holds?calendar_id=${cal.id}`, { key: wide })).json.data).toHaveLength(2);

    const eventsB = await api(`/api/v1/calendars/${cal.id}/events`, { key: keyB });
    expect(eventsB.status).toBe(200);
    expect(eventsB.json.data).toEqual([]);
    expect(eventsB.text).not.toContain("ACME");
    expect((await api(`/api/v1/calendars/${cal.id}/events`, { key: wide })).json.data.map((e: { id: string }) => e.id)).toEqual([eventId]);
    expect((await api(`/api/v1/calendars/${cal.id}/events`, { key: keyA })).json.data[0].metadata).toEqual(SECRET_METADATA);
  });

  it("availability and conflicts show that the time is held and at what priority, not whose or why", async () => {
    const { cal, a, keyB, wide, hold } = await setup();

    const avail = await api(`/api/v1/calendars/${cal.id}/availability?from=${T(8)}&to=${T(13)}`, { key: keyB });
    expect(avail.status).toBe(200);
    expect(avail.json.busy).toEqual([
      expect.objectContaining({ kind: "hold", priority: 60, start_time: T(9) }),
      expect.objectContaining({ kind: "event", start_time: T(11) }),
    ]);
    expect(avail.text).not.toContain("ACME");
    expect(avail.text).not.toContain(a.id);

    const clash = await api(`/api/v1/calendars/${cal.id}/holds`, { key: keyB, body: { start_time: T(9), end_time: T(10), priority: 10 } });
    expect(clash.status).toBe(409);
    expect(clash.json.conflicts).toEqual([expect.objectContaining({ type: "hold", id: hold.id, priority: 60, agent_id: null })]);
    expect(clash.text).not.toContain(a.id);
    expect(clash.text).not.toContain("ACME");

    // A workspace-wide key is told whose hold is in the way.
    const wideClash = await api(`/api/v1/calendars/${cal.id}/holds`, { key: wide, body: { start_time: T(9), end_time: T(10), priority: 10 } });
    expect(wideClash.json.conflicts).toEqual([expect.objectContaining({ type: "hold", agent_id: a.id })]);
  });

  it("MCP get_hold of another agent's hold is not_found", async () => {
    const { keyA, keyB, hold } = await setup();
    const call = async (key: string) => {
      const client = new Client({ name: "privacy-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      try {
        return (await client.callTool({ name: "get_hold", arguments: { hold_id: hold.id } })) as CallToolResult & { structuredContent?: any };
      } finally {
        await client.close();
      }
    };
    const other = await call(keyB);
    expect(other.isError).toBe(true);
    expect(other.structuredContent).toMatchObject({ code: "not_found", status: 404 });
    expect(JSON.stringify(other)).not.toContain("ACME");
    expect((await call(keyA)).structuredContent.metadata).toEqual(SECRET_METADATA);
  });
});
