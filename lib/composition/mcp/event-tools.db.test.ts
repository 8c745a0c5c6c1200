import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { mcpClients } from "../../../test/helpers/mcp-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { transaction } from "../../../db/transaction";
import { operatorActor } from "../../platform/actor";
import { emitEvent, type EventType } from "../../platform/events/emit-event";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", EVENTS_POLL_INTERVAL_MS: "60000" });
const { url } = serveApiForTests();
const { connect, call } = mcpClients(url);



const wait = async (client: Awaited<ReturnType<typeof connect>>, args: Record<string, unknown>) => (await call(client, "wait_for_events", args)).structuredContent;

const emit = (workspaceId: string, type: EventType, agentId: string | null, n: number) =>
  transaction((tx) => emitEvent(tx, operatorActor(workspaceId), { type, agentId, data: { n } }));

describe("MCP wait_for_events", () => {
  it("waits for the next events, is woken by a commit, and resumes from `next` with nothing missed or repeated", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const other = await newAgent(workspace.id);
    const { key } = await newKey(workspace.id, { agent_id: agent.id });
    const client = await connect(key);

    const idle = await wait(client, { wait_seconds: 1 });
    expect(idle).toMatchObject({ object: "list", data: [] });
    expect(idle.next).toMatch(/^\d+$/);

    // A waiting call returns as soon as an event commits: it waits up to 30 s (the most it may)
    // and polls the database each minute (EVENTS_POLL_INTERVAL_MS, above), both past this test's
    // timeout, so an answer at all is the commit waking it.
    const waiting = wait(client, { after: idle.next, wait_seconds: 30 });
    await new Promise((r) => setTimeout(r, 300));
    await emit(workspace.id, "approval.resolved", other.id, 0); // another agent's: not this key's
    await emit(workspace.id, "hold.created", agent.id, 1);
    const first = await waiting;
    expect(first.data.map((e: any) => e.data.n)).toEqual([1]);

    await emit(workspace.id, "hold.released", agent.id, 2);
    await emit(workspace.id, "email.received", agent.id, 3);
    await emit(workspace.id, "hold.committed", agent.id, 4);
    const page = await wait(client, { after: first.next, limit: 2, wait_seconds: 1 });
    expect(page.data.map((e: any) => e.data.n)).toEqual([2, 3]);
    const rest = await wait(client, { after: page.next, wait_seconds: 1 });
    expect(rest.data.map((e: any) => e.data.n)).toEqual([4]);
    const typed = await wait(client, { after: first.next, types: ["hold.committed"], wait_seconds: 1 });
    expect(typed.data.map((e: any) => [e.type, e.data.n])).toEqual([["hold.committed", 4]]);
  });

  it("refuses a key whose scopes allow no event type, and a malformed position", async () => {
    const { workspace } = await newWorkspace();
    const { key } = await newKey(workspace.id, { scopes: ["audit"] });
    const client = await connect(key);
    const refused = await call(client, "wait_for_events", { wait_seconds: 1 });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("insufficient_scope");
    const { key: wide } = await newKey(workspace.id);
    const bad = await call(await connect(wide), "wait_for_events", { after: "nope" });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("validation_failed");
  });
});
