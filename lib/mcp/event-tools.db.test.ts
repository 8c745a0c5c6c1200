import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serveApiForTests } from "../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../test/helpers/fixtures";
import { setTestEnv } from "../../test/helpers/env";
import { transaction } from "../../db/transaction";
import { operatorActor } from "../actor";
import { emitEvent, type EventType } from "../events/emit-event";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", EVENTS_POLL_INTERVAL_MS: "5000" });
const { url } = serveApiForTests();

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(key: string) {
  const client = new Client({ name: "agentdraft-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  open.push(client);
  return client;
}

const call = async (client: Client, args: Record<string, unknown>) =>
  ((await client.callTool({ name: "wait_for_events", arguments: args })) as CallToolResult & { structuredContent?: any }).structuredContent;

const emit = (workspaceId: string, type: EventType, agentId: string | null, n: number) =>
  transaction((tx) => emitEvent(tx, operatorActor(workspaceId), { type, agentId, data: { n } }));

describe("MCP wait_for_events", () => {
  it("waits for the next events, is woken by a commit, and resumes from `next` with nothing missed or repeated", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const other = await newAgent(workspace.id);
    const { key } = await newKey(workspace.id, { agent_id: agent.id });
    const client = await connect(key);

    const idle = await call(client, { wait_seconds: 1 });
    expect(idle).toMatchObject({ object: "list", data: [] });
    expect(idle.next).toMatch(/^\d+\.-1$/);

    // A waiting call returns as soon as an event commits (well before its 20 s, and before the 5 s poll).
    const started = Date.now();
    const waiting = call(client, { after: idle.next, wait_seconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    await emit(workspace.id, "approval.resolved", other.id, 0); // another agent's: not this key's
    await emit(workspace.id, "hold.created", agent.id, 1);
    const first = await waiting;
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(first.data.map((e: any) => e.data.n)).toEqual([1]);

    await emit(workspace.id, "hold.released", agent.id, 2);
    await emit(workspace.id, "email.received", agent.id, 3);
    await emit(workspace.id, "hold.committed", agent.id, 4);
    const page = await call(client, { after: first.next, limit: 2, wait_seconds: 1 });
    expect(page.data.map((e: any) => e.data.n)).toEqual([2, 3]);
    const rest = await call(client, { after: page.next, wait_seconds: 1 });
    expect(rest.data.map((e: any) => e.data.n)).toEqual([4]);
    const typed = await call(client, { after: first.next, types: ["hold.committed"], wait_seconds: 1 });
    expect(typed.data.map((e: any) => [e.type, e.data.n])).toEqual([["hold.committed", 4]]);
  });

  it("refuses a key whose scopes allow no event type, and a malformed position", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id, { scopes: ["audit"] });
    const client = await connect(key);
    const refused = (await client.callTool({ name: "wait_for_events", arguments: { wait_seconds: 1 } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("insufficient_scope");
    const { key: wide } = await newKey(workspace.id);
    const bad = (await (await connect(wide)).callTool({ name: "wait_for_events", arguments: { after: "nope" } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("validation_failed");
  });
});
