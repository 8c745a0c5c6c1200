import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { CHANNELS, INSIDE } from "./channels";
import { OPERATIONS } from "./operations";
import { MCP_TOOLS } from "./mcp/tools";
import { BUILTIN_KEYS } from "../domains/approvals/builtin-policies";

const gated = { rest: CHANNELS.flatMap((c) => c.rest), mcp: CHANNELS.flatMap((c) => c.mcp) };
const inside = { rest: INSIDE.flatMap((g) => g.rest), mcp: INSIDE.flatMap((g) => g.mcp) };

describe("every channel an agent acts through is listed with its gate (lib/composition/channels.ts)", () => {
  it("names every REST operation (and so every SDK method) once: gated, or inside with a reason", () => {
    const listed = [...gated.rest, ...inside.rest];
    expect(new Set(listed).size, "an operation is listed twice").toBe(listed.length);
    const unlisted = OPERATIONS.map((o) => o.operationId).filter((id) => !listed.includes(id));
    expect(unlisted, "a new operation: add it to CHANNELS with the gate that covers it, or to INSIDE saying why nothing leaves through it").toEqual([]);
    expect(listed.filter((id) => !OPERATIONS.some((o) => o.operationId === id)), "listed but not an operation").toEqual([]);
  });

  it("names every MCP tool once, and every tool the server marks open-world is a gated channel", () => {
    const listed = [...gated.mcp, ...inside.mcp];
    expect(new Set(listed).size, "a tool is listed twice").toBe(listed.length);
    const names = MCP_TOOLS.map((t) => t.name);
    expect(names.filter((n) => !listed.includes(n)), "a new tool: add it to CHANNELS with its gate, or to INSIDE saying why").toEqual([]);
    expect(listed.filter((n) => !names.includes(n)), "listed but not a tool").toEqual([]);
    const openWorld = MCP_TOOLS.filter((t) => t.annotations.openWorldHint).map((t) => t.name);
    expect(openWorld.filter((n) => !gated.mcp.includes(n)), "reaches the open world without a gate").toEqual([]);
    // A read-only tool or operation is never a channel out.
    expect(MCP_TOOLS.filter((t) => t.annotations.readOnlyHint && gated.mcp.includes(t.name)).map((t) => t.name)).toEqual([]);
    expect(OPERATIONS.filter((o) => o.method === "GET" && gated.rest.includes(o.operationId)).map((o) => o.operationId)).toEqual([]);
  });

  it("every built-in rule gates a channel, and every gate is a file that exists", () => {
    const used = CHANNELS.flatMap((c) => ("builtin" in c.gate ? [c.gate.builtin] : []));
    expect([...new Set(used)].sort()).toEqual([...BUILTIN_KEYS].sort());
    for (const c of CHANNELS) expect(existsSync(c.gate.enforcedIn.split(" ")[0]!), c.gate.enforcedIn).toBe(true);
    // The list: each is a channel here.
    expect(CHANNELS.map((c) => c.channel).sort()).toEqual(["drafts", "forward", "handoffs", "holds", "leases", "mail", "webhooks"]);
  });
});
