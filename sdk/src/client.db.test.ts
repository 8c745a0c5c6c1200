// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { serveApiForTests } from "../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../test/helpers/fixtures";
import { setTestEnv } from "../../test/helpers/env";
import { getDb } from "../../db/client";
import { holds } from "../../db/schema";
import { decideApproval } from "../../lib/domains/approvals/decide-approval";
import { AgentDraftError, ApprovalNotGrantedError, apiBaseUrl, createAgentDraftClient, unwrap, waitForApproval, withApproval } from "./index";
import { onUtcDay } from "../../test/helpers/clock";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { url } = serveApiForTests();

async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "scheduler");
  const { key } = await newKey(workspace.id, { agent_id: agent.id });
  const { key: adminKey } = await newKey(workspace.id);
  const admin = createAgentDraftClient({ apiKey: adminKey, baseUrl: url() });
  const calendar = unwrap(await admin.POST("/v1/calendars", { body: { name: "Staging cluster" } }));
  return { workspace, agent, key, calendar };
}

const at = onUtcDay(30);

describe("@agentdraft/client against the running API", () => {
  it("an agent's first hold: place, commit, with typed data and the key's identity", async () => {
    const { agent, key, calendar } = await setup();
    const client = createAgentDraftClient({ apiKey: key, baseUrl: url(), traceId: "trace-sdk-1" });
    const me = unwrap(await client.GET("/v1/me"));
    expect(me.agent?.id).toBe(agent.id);

    const hold = unwrap(
      await client.POST("/v1/calendars/{id}/holds", {
        params: { path: { id: calendar.id } },
        body: { start_time: at(15), end_time: at(17), priority: 70, hold_ttl_seconds: 60 },
      }),
    );
    expect(hold).toMatchObject({ object: "hold", status: "held", agent_id: agent.id, priority: 70 });
    const committed = unwrap(await client.POST("/v1/holds/{id}/commit", { params: { path: { id: hold.id } } }));
    expect(committed.status).toBe("committed");
    expect(committed.event_ids).toHaveLength(1);

    const audit = unwrap(await client.GET("/v1/audit", { params: { query: { trace_id: "trace-sdk-1" } } }));
    expect(audit.data.map((e) => e.action).sort()).toEqual(["hold.committed", "hold.created"]);
  });

  it("Idempotency-Key: the same key replays the same hold; another body with it is a typed 422", async () => {
    const { workspace, key, calendar } = await setup();
    const client = createAgentDraftClient({ apiKey: key, baseUrl: url() });
    const place = (priority: number) =>
      client.POST("/v1/holds", {
        params: { header: { "Idempotency-Key": "first-hold" } },
        body: { calendar_ids: [calendar.id], start_time: at(9), end_time: at(10), priority },
      });
    const first = await place(60);
    const again = await place(60);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(unwrap(again).id).toBe(unwrap(first).id);
    const mismatch = await place(61);
    expect(mismatch.response.status).toBe(422);
    expect(mismatch.error?.code).toBe("idempotency_mismatch");
    const db = await getDb();
    expect(await db.select().from(holds).where(eq(holds.workspaceId, workspace.id))).toHaveLength(1);
  });

  it("errors are AgentDraftError with the problem's code, fields and extra members", async () => {
    const { key, calendar } = await setup();
    const client = createAgentDraftClient({ apiKey: key, baseUrl: url() });
    const body = { start_time: at(11), end_time: at(12), priority: 50 };
    unwrap(await client.POST("/v1/calendars/{id}/holds", { params: { path: { id: calendar.id } }, body }));

    const conflict = await client.POST("/v1/calendars/{id}/holds", { params: { path: { id: calendar.id } }, body });
    const err = (() => {
      try {
        unwrap(conflict);
      } catch (e) {
        return e as AgentDraftError;
      }
    })();
    expect(err).toBeInstanceOf(AgentDraftError);
    expect(err).toMatchObject({ code: "hold_conflict", status: 409, requestId: expect.stringMatching(/^req/) });
    expect(err!.problem.conflicts).toEqual([expect.objectContaining({ type: "hold" })]);

    const invalid = await client.POST("/v1/calendars/{id}/holds", {
      params: { path: { id: calendar.id } },
      body: { start_time: at(12), end_time: at(11) },
    });
    expect(() => unwrap(invalid)).toThrow(AgentDraftError);
    expect(invalid.error).toMatchObject({ code: "validation_failed", errors: [{ field: "end_time", message: "end_time must be after start_time" }] });

    const missing = await client.GET("/v1/holds/{id}", { params: { path: { id: "hold_missing" } } });
    expect(missing.error?.code).toBe("not_found");

    const stranger = createAgentDraftClient({ apiKey: "ad_live_" + "x".repeat(43), baseUrl: url() });
    const refused = await stranger.GET("/v1/me");
    expect(refused.response.status).toBe(401);
    expect(refused.error?.code).toBe("unauthorized");
  });

  it("retries a POST whose response was lost with its own Idempotency-Key: the hold is placed once", async () => {
    const { workspace, key, calendar } = await setup();
    const sent: string[] = [];
    let lose = true;
    const client = createAgentDraftClient({
      apiKey: key,
      baseUrl: url(),
      fetch: async (request) => {
        sent.push(request.headers.get("idempotency-key") ?? "");
        const res = await fetch(request);
        if (lose) {
          lose = false;
          throw new TypeError("fetch failed: connection reset after the server answered");
        }
        return res;
      },
    });
    const hold = unwrap(await client.POST("/v1/holds", { body: { calendar_ids: [calendar.id], start_time: at(13), end_time: at(14) } }));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^sdk_/);
    expect(sent[1]).toBe(sent[0]);
    const db = await getDb();
    const rows = await db.select().from(holds).where(eq(holds.workspaceId, workspace.id));
    expect(rows.map((r) => r.id)).toEqual([hold.id]);
  });

  it("waitForApproval long-polls until a member decides", async () => {
    const { workspace, key } = await setup();
    const approver = await newMember(workspace.id, "approver");
    const client = createAgentDraftClient({ apiKey: key, baseUrl: url() });
    const approval = unwrap(await client.POST("/v1/approvals", { body: { summary: "Refund A-1 (20 EUR)", evidence: { order: "A-1" } } }));
    setTimeout(() => void decideApproval(approver.actor, approval.id, "approve"), 300);
    const decided = await waitForApproval(client, approval.id, { timeoutMs: 15_000 });
    expect(decided).toMatchObject({ id: approval.id, status: "approved" });
  });

  it("withApproval asks, waits, spends the approval on the exact action, then runs; a denial never runs it", async () => {
    const { workspace, key } = await setup();
    const approver = await newMember(workspace.id, "approver");
    const client = createAgentDraftClient({ apiKey: key, baseUrl: url() });
    // A person decides whatever the agent asks, as soon as it appears in the queue.
    const decideNext = (decision: "approve" | "deny") => {
      const timer = setInterval(async () => {
        const pending = unwrap(await client.GET("/v1/approvals", { params: { query: { status: "pending" } } })).data;
        if (!pending.length) return;
        clearInterval(timer);
        await decideApproval(approver.actor, pending[0]!.id, decision, decision === "deny" ? "not today" : undefined);
      }, 100);
    };
    const action = { type: "refund", order: 8812, amount: 120, currency: "EUR" };
    let runs = 0;
    decideNext("approve");
    const result = await withApproval(client, { summary: "Refund order 8812", evidence: { order: 8812 }, action, action_class: "refund" }, async (approval) => {
      runs++;
      return approval;
    }, { timeoutMs: 15_000 });
    expect(runs).toBe(1);
    expect(result).toMatchObject({ status: "approved", consumed: true });
    // Spent once: nobody can spend it again, even on the same action.
    const again = await client.POST("/v1/approvals/{id}/consume", { params: { path: { id: result.id } }, body: { action } });
    expect(again.error).toMatchObject({ code: "approval_consumed" });

    decideNext("deny");
    const denied = withApproval(client, { summary: "Refund order 9000", evidence: {}, action: { ...action, order: 9000 } }, () => runs++, { timeoutMs: 15_000 });
    await expect(denied).rejects.toBeInstanceOf(ApprovalNotGrantedError);
    await expect(denied).rejects.toMatchObject({ approval: { status: "denied" } });
    expect(runs).toBe(1);
  });

  it("takes the app's origin or its /api root", () => {
    expect(apiBaseUrl("https://agentdraft.example.com/")).toBe("https://agentdraft.example.com/api");
    expect(apiBaseUrl("https://agentdraft.example.com/api")).toBe("https://agentdraft.example.com/api");
    expect(apiBaseUrl()).toBe("http://localhost:3000/api");
  });
});
