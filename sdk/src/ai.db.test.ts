// @suite moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { generateText, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3Content, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { serveApiForTests } from "../../test/helpers/api-client";
import { mcpClients } from "../../test/helpers/mcp-client";
import { newAgent, newKey, newWorkspace } from "../../test/helpers/fixtures";
import { setTestEnv } from "../../test/helpers/env";
import { getDb } from "../../db/client";
import { approvals, holds } from "../../db/schema";
import { agentDraftTools, MCP_ONLY, TOOL_DEFINITIONS } from "./ai";
import { onUtcDay } from "../../test/helpers/clock";

setTestEnv({ API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect } = mcpClients(url);

type Call = { toolName: string; input: Record<string, unknown> };
/** The tool results the model has been given so far, by tool call id. */
type Results = Record<string, unknown>;

/**
 * A language model that follows a script: each step reads the tool results so far and answers
 * with tool calls (ids c0, c1, ...) or, when the script ends, with text.
 */
function scriptedModel(steps: ((results: Results) => Call[])[]) {
  let n = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const step = steps.shift();
      const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
      if (!step) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      const content: LanguageModelV3Content[] = step(toolResults(prompt)).map((c) => ({ type: "tool-call", toolCallId: `c${n++}`, toolName: c.toolName, input: JSON.stringify(c.input) }));
      return { content, finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
    },
  });
}

function toolResults(prompt: LanguageModelV3Prompt): Results {
  const out: Results = {};
  for (const m of prompt) {
    if (m.role !== "tool") continue;
    for (const part of m.content) if (part.type === "tool-result") out[part.toolCallId] = part.output.type === "json" ? part.output.value : part.output;
  }
  return out;
}

async function setup() {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "scheduler");
  const other = await newAgent(workspace.id, "writer");
  const { key } = await newKey(workspace.id, { agent_id: agent.id });
  const { key: admin } = await newKey(workspace.id);
  const cal = (await api("/api/v1/calendars", { key: admin, body: { name: "Staging cluster" } })).json as { id: string };
  const inbox = (await api("/api/v1/inboxes", { key, body: { username: `ai-${Date.now()}` } })).json as { id: string };
  return { workspace, agent, other, key, cal, inbox };
}

const hour = onUtcDay(30);
const toolResultsOf = (messages: ModelMessage[]) =>
  Object.fromEntries(messages.flatMap((m) => (m.role === "tool" ? m.content.flatMap((p) => (p.type === "tool-result" ? [[p.toolCallId, p.output]] : [])) : [])));

describe("@agentdraft/client/ai: AgentDraft tools for the Vercel AI SDK", () => {
  it("generateText with a model that checks availability, places and commits a hold, asks for approval, lists inboxes and hands off", async () => {
    const { agent, other, key, cal, inbox } = await setup();
    const tools = agentDraftTools({ apiKey: key, baseUrl: url() });
    const result = await generateText({
      model: scriptedModel([
        () => [
          { toolName: "check_availability", input: { calendar_id: cal.id, from: hour(9), to: hour(18) } },
          { toolName: "list_inboxes", input: {} },
        ],
        () => [{ toolName: "place_hold", input: { calendar_ids: [cal.id], start_time: hour(15), end_time: hour(17), priority: 70, hold_ttl_seconds: 120, idempotency_key: "ai-hold-1" } }],
        (r) => [
          { toolName: "commit_hold", input: { hold_id: (r.c2 as { id: string }).id } },
          { toolName: "request_approval", input: { summary: "Refund order A-7 (80 EUR)", evidence: { order: "A-7" }, action_class: "refund", amount: 80, currency: "EUR" } },
          { toolName: "handoff", input: { to_agent_id: other.id, type: "draft.reply", body: { topic: "launch" }, idempotency_key: "ai-handoff-1" } },
        ],
      ]),
      tools,
      stopWhen: stepCountIs(10),
      prompt: "Book the staging cluster from 15:00 to 17:00 and ask for the refund.",
    });
    expect(result.text).toBe("done");
    const seen = toolResultsOf(result.response.messages);
    expect(Object.keys(seen)).toEqual(["c0", "c1", "c2", "c3", "c4", "c5"]);
    const value = (id: string) => (seen[id] as { type: string; value: any }).value;
    expect(value("c0")).toMatchObject({ calendar_id: cal.id, busy: [] });
    expect(value("c1").data.map((i: { id: string }) => i.id)).toEqual([inbox.id]);
    const hold = value("c2");
    expect(hold).toMatchObject({ object: "hold", status: "held", agent_id: agent.id, calendar_ids: [cal.id], priority: 70 });
    expect(value("c3")).toMatchObject({ id: hold.id, status: "committed" });
    const approval = value("c4");
    expect(approval).toMatchObject({ object: "approval", status: "pending", agent_id: agent.id, summary: "Refund order A-7 (80 EUR)" });
    expect(value("c5")).toMatchObject({ object: "handoff", to_agent_id: other.id, type: "draft.reply" });

    // They really exist.
    const db = await getDb();
    const [row] = await db.select().from(holds).where(eq(holds.id, hold.id));
    expect(row).toMatchObject({ status: "committed", agentId: agent.id });
    const [appr] = await db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(appr).toMatchObject({ status: "pending", agentId: agent.id });

    // The model's idempotency_key is the REST Idempotency-Key: the same hold again, nothing new booked.
    const again = await tools.place_hold.execute!({ calendar_ids: [cal.id], start_time: hour(15), end_time: hour(17), priority: 70, hold_ttl_seconds: 120, idempotency_key: "ai-hold-1" }, { toolCallId: "x", messages: [] });
    expect((again as { id: string }).id).toBe(hold.id);
    expect((await db.select().from(holds).where(eq(holds.agentId, agent.id))).length).toBe(1);
  });

  it("refusals come back to the model as readable results: a hold conflict, bad input, a missing id", async () => {
    const { cal, key } = await setup();
    const tools = agentDraftTools({ apiKey: key, baseUrl: url(), only: ["place_hold", "get_hold"] });
    expect(Object.keys(tools).sort()).toEqual(["get_hold", "place_hold"]);
    const hold = { calendar_ids: [cal.id], start_time: hour(10), end_time: hour(12), priority: 50, hold_ttl_seconds: 120 };
    const result = await generateText({
      model: scriptedModel([
        () => [{ toolName: "place_hold", input: hold }],
        () => [{ toolName: "place_hold", input: { ...hold, start_time: hour(11), end_time: hour(13) } }],
        () => [
          { toolName: "place_hold", input: { ...hold, end_time: "not a time" } },
          { toolName: "get_hold", input: {} },
        ],
      ]),
      tools,
      stopWhen: stepCountIs(10),
      prompt: "Hold 10:00-12:00, then 11:00-13:00.",
    });
    expect(result.text).toBe("done");
    const seen = toolResultsOf(result.response.messages);
    const value = (id: string) => (seen[id] as { type: string; value: any }).value;
    expect(value("c0")).toMatchObject({ object: "hold", status: "held" });
    const conflict = value("c1").error;
    expect(conflict).toMatchObject({ code: "hold_conflict", status: 409 });
    expect(conflict.detail).toEqual(expect.any(String));
    expect(JSON.stringify(conflict)).toContain(value("c0").id);
    expect(value("c2").error).toMatchObject({ code: "validation_failed", status: 400 });
    expect(value("c2").error.errors.map((e: { field: string }) => e.field)).toContain("end_time");
    expect(value("c3").error).toMatchObject({ code: "validation_failed", detail: expect.stringContaining("hold_id") });
  });

  it("offers the MCP server's tools: the same names, descriptions and input schemas as /api/mcp lists", async () => {
    const { key } = await setup();
    const { tools: listed } = await (await connect(key)).listTools();
    const offered = listed.filter((t) => !(MCP_ONLY as readonly string[]).includes(t.name));
    const tools = agentDraftTools({ apiKey: key, baseUrl: url() });
    expect(Object.keys(tools)).toEqual(offered.map((t) => t.name));
    for (const t of offered) {
      const ours = tools[t.name as keyof typeof tools];
      expect(ours.description, t.name).toBe(t.description);
      const { $schema: _s, ...schema } = t.inputSchema as Record<string, unknown>;
      expect(TOOL_DEFINITIONS.find((d) => d.name === t.name)!.inputSchema, t.name).toEqual(schema);
      expect(await (ours.inputSchema as unknown as { jsonSchema: unknown }).jsonSchema, t.name).toEqual(schema);
    }
  });

  it("requireApproval: 'consequential' sets needsApproval on mail sends and commits, and nothing runs until approved", async () => {
    const { key } = await setup();
    const tools = agentDraftTools({ apiKey: key, baseUrl: url(), requireApproval: "consequential" });
    expect(tools.send_message.needsApproval).toBe(true);
    expect(tools.reply_to_message.needsApproval).toBe(true);
    expect(tools.commit_hold.needsApproval).toBe(true);
    expect(tools.place_hold.needsApproval).toBeUndefined();
    expect(tools.list_inboxes.needsApproval).toBeUndefined();
    const result = await generateText({
      model: scriptedModel([() => [{ toolName: "commit_hold", input: { hold_id: "hold_01jzzzzzzzzzzzzzzzzzzzzzzz" } }]]),
      tools,
      stopWhen: stepCountIs(5),
      prompt: "Commit it.",
    });
    expect(result.content.map((p) => p.type)).toContain("tool-approval-request");
    expect(toolResultsOf(result.response.messages)).toEqual({});
  });
});
