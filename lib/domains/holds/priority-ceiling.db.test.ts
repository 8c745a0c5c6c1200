// @suite moved-clock
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { auditEntries, holds } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { createCalendar } from "../calendars/calendars";
import { operatorActor } from "../../platform/actor";
import { runCli } from "../../../cli/main";
import { onUtcDay } from "../../../test/helpers/clock";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
const T = onUtcDay(30);

async function setup() {
  const { workspace } = await newWorkspace();
  const cal = await createCalendar(operatorActor(workspace.id), { name: "staging" });
  const agent = await newAgent(workspace.id, "deployer");
  const other = await newAgent(workspace.id, "reviewer");
  const { key: bound } = await newKey(workspace.id, { agent_id: agent.id });
  const { key: otherKey } = await newKey(workspace.id, { agent_id: other.id });
  const { key: wide } = await newKey(workspace.id);
  return { workspace, cal, agent, other, bound, otherKey, wide };
}

const hold = (calId: string, key: string, priority: number, h = 9) =>
  api(`/api/v1/calendars/${calId}/holds`, { key, body: { start_time: T(h), end_time: T(h + 1), priority, hold_ttl_seconds: 600 } });

describe("priority ceilings", () => {
  it("a workspace-wide key sets an agent's max_priority; a key bound to it asking for more gets 403 and changes nothing", async () => {
    const { workspace, cal, agent, bound, wide } = await setup();
    expect((await api(`/api/v1/agents/${agent.id}`, { key: wide })).json.max_priority).toBe(100);
    const set = await api(`/api/v1/agents/${agent.id}`, { key: wide, method: "PATCH", body: { max_priority: 40 } });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ id: agent.id, max_priority: 40 });

    const refused = await hold(cal.id, bound, 41);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: "priority_above_ceiling", max_priority: 40 });
    const db = await getDb();
    expect(await db.select().from(holds).where(eq(holds.workspaceId, workspace.id))).toHaveLength(0);

    expect((await hold(cal.id, bound, 40)).status).toBe(201);
    // A workspace-wide key is no agent: no ceiling.
    expect((await hold(cal.id, wide, 100, 11)).status).toBe(201);
    const audit = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "agent.updated")));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.summary).toMatchObject({ max_priority: 40, previous_max_priority: 100 });
  });

  it("an agent-bound key cannot change any agent's ceiling, its own included; bad values are 400", async () => {
    const { agent, other, bound, wide } = await setup();
    expect((await api(`/api/v1/agents/${agent.id}`, { key: bound, method: "PATCH", body: { max_priority: 100 } })).status).toBe(403);
    expect((await api(`/api/v1/agents/${other.id}`, { key: bound, method: "PATCH", body: { max_priority: 0 } })).status).toBe(403);
    for (const bad of [101, -1, 2.5, "50"]) {
      const r = await api(`/api/v1/agents/${agent.id}`, { key: wide, method: "PATCH", body: { max_priority: bad } });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe("validation_failed");
    }
    const { workspace: elsewhere } = await newWorkspace();
    const { key: foreign } = await newKey(elsewhere.id);
    expect((await api(`/api/v1/agents/${agent.id}`, { key: foreign, method: "PATCH", body: { max_priority: 1 } })).status).toBe(404);
    expect((await api(`/api/v1/agents/${agent.id}`, { key: wide })).json.max_priority).toBe(100);
  });

  it("the CLI sets a ceiling and the preemption floor", async () => {
    const { workspace, agent } = await setup();
    const quiet = { write: () => true };
    expect(await runCli(["agent", "set-ceiling", "--workspace", workspace.id, "--agent", "deployer", "--max-priority", "30", "--json"], quiet, quiet)).toBe(0);
    expect(await runCli(["agent", "set-ceiling", "--workspace", workspace.id, "--agent", agent.id, "--max-priority", "300"], quiet, quiet)).toBe(2);
    expect(await runCli(["workspace", "set-preempt-floor", "--workspace", workspace.id, "--min-priority", "70"], quiet, quiet)).toBe(0);
    const { findAgent } = await import("../agents/find-agent");
    const { getWorkspace } = await import("../workspaces/get-workspace");
    expect((await findAgent(workspace.id, agent.id)).maxPriority).toBe(30);
    expect((await getWorkspace(workspace.id)).holdPreemptMinPriority).toBe(70);
  });
});

describe("the workspace's preemption floor", () => {
  it("holds below it never preempt (a lower live hold is a conflict); at or above it they do", async () => {
    const { workspace, cal, bound, otherKey } = await setup();
    const { setPreemptFloor } = await import("../workspaces/preempt-floor");
    await setPreemptFloor(operatorActor(workspace.id), 50);
    const low = await hold(cal.id, otherKey, 10);
    expect(low.status).toBe(201);

    const below = await hold(cal.id, bound, 49);
    expect(below.status).toBe(409);
    expect(below.json.code).toBe("hold_conflict");
    // Another agent's hold in the way is not named to an agent-bound key.
    expect(below.json.conflicts).toEqual([expect.objectContaining({ type: "hold", id: low.json.id, priority: 10, agent_id: null })]);
    expect((await api(`/api/v1/holds/${low.json.id}`, { key: otherKey })).json.status).toBe("held");

    const at = await hold(cal.id, bound, 50);
    expect(at.status).toBe(201);
    expect((await api(`/api/v1/holds/${low.json.id}`, { key: otherKey })).json).toMatchObject({ status: "preempted", preempted_by: { hold_id: at.json.id, priority: 50 } });

    // Off again: any higher priority preempts.
    await setPreemptFloor(operatorActor(workspace.id), 0);
    const free = await hold(cal.id, otherKey, 5, 13);
    expect((await hold(cal.id, bound, 6, 13)).status).toBe(201);
    expect((await api(`/api/v1/holds/${free.json.id}`, { key: otherKey })).json.status).toBe("preempted");
  });
});
