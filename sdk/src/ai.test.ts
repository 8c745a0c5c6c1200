import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { AI_TOOLS_FILE, generateAiToolDefinitions } from "../codegen/generate-ai-tools";
import { MCP_TOOLS } from "../../lib/composition/mcp/tools";
import { agentDraftTools, isConsequential, MCP_ONLY, toolRequest, type AgentDraftToolName } from "./ai";

describe("@agentdraft/client/ai", () => {
  it("sdk/src/ai-tool-definitions.ts matches the MCP tools (run `npm run sdk:generate` after changing a tool)", () => {
    const committed = fs.readFileSync(AI_TOOLS_FILE, "utf8");
    expect(committed === generateAiToolDefinitions(), "sdk/src/ai-tool-definitions.ts is stale: run `npm run sdk:generate` and commit it").toBe(true);
  });

  it("has a tool for every MCP tool but the MCP-only ones, in the same order", () => {
    const tools = agentDraftTools({ apiKey: "ad_test_x" });
    expect(Object.keys(tools)).toEqual(MCP_TOOLS.map((t) => t.name).filter((n) => !(MCP_ONLY as readonly string[]).includes(n)));
  });

  it("each write makes the REST request the MCP tool shares its idempotency store with (same path and body)", () => {
    const writes = MCP_TOOLS.filter((t) => t.write && t.name !== "next_handoff");
    expect(writes.length).toBeGreaterThan(15);
    for (const t of writes) {
      const args = Object.fromEntries(Object.keys(t.input).map((k) => [k, `v_${k}`]));
      const { idempotency_key: _k, ...rest } = args;
      const mcp = t.write!(rest);
      const ours = toolRequest(t.name as Exclude<AgentDraftToolName, "next_handoff">, args);
      expect(ours.method, t.name).toBe(mcp.method ?? "POST");
      expect(ours.path.replace("{id}", String(ours.id)), t.name).toBe(mcp.path);
      expect(ours.body, t.name).toEqual(mcp.body ?? {});
      expect(ours.headers["idempotency-key"], t.name).toBe("v_idempotency_key");
      if ("approval_id" in t.input && !ours.path.startsWith("/v1/approvals")) expect(ours.headers["AgentDraft-Approval-Id"], t.name).toBe("v_approval_id");
    }
  });

  it("reads are GETs with their arguments as the query (await_approval's wait_seconds as wait)", () => {
    expect(toolRequest("await_approval", { approval_id: "appr_1", wait_seconds: 5 })).toMatchObject({ method: "GET", path: "/v1/approvals/{id}", id: "appr_1", query: { wait: 5 } });
    expect(toolRequest("check_availability", { calendar_id: "cal_1", from: "a", to: "b" })).toMatchObject({ method: "GET", id: "cal_1", query: { from: "a", to: "b" } });
  });

  it("only, except, and requireApproval pick the tools and mark the consequential ones", () => {
    expect(Object.keys(agentDraftTools({ apiKey: "ad_test_x", only: ["place_hold", "commit_hold"] }))).toEqual(["place_hold", "commit_hold"]);
    expect(Object.keys(agentDraftTools({ apiKey: "ad_test_x", except: ["send_message"] }))).not.toContain("send_message");
    expect(["send_message", "reply_to_message", "forward_message", "commit_hold", "release_hold", "consume_approval"].every((n) => isConsequential(n as AgentDraftToolName))).toBe(true);
    expect(["list_inboxes", "place_hold", "request_approval", "handoff"].some((n) => isConsequential(n as AgentDraftToolName))).toBe(false);
    const all = agentDraftTools({ apiKey: "ad_test_x", requireApproval: true });
    expect(all.place_hold.needsApproval).toBe(true);
    expect(all.get_hold.needsApproval).toBeUndefined();
    const listed = agentDraftTools({ apiKey: "ad_test_x", requireApproval: ["handoff"] });
    expect(listed.handoff.needsApproval).toBe(true);
    expect(listed.send_message.needsApproval).toBeUndefined();
  });
});
