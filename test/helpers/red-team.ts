// The red team's hands and eyes (lib/domains/approvals/red-team.db.test.ts): one call, four ways
// in (REST, MCP, the TypeScript SDK, the Python SDK), and an oracle that models, from what the
// test itself did, which agents are tainted and which addresses the workspace trusts. The oracle
// never asks the server what it thinks: it is the independent judge of what may leave.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { createAgentDraftClient, type AgentDraftClient } from "../../sdk/src/client";
import type { serveApiForTests } from "./api-client";
import type { mcpClients } from "./mcp-client";

export type Way = "rest" | "mcp" | "sdk" | "python";
export type Answer = { status: number; body: any };
type Api = ReturnType<typeof serveApiForTests>["api"];
type Mcp = ReturnType<typeof mcpClients>;

/** One call as each way makes it. `mcp` and `python` absent: that way has no such call. */
export type Call = {
  method: "GET" | "POST" | "PATCH";
  path: string;
  body?: Record<string, unknown>;
  mcp?: [tool: string, args: Record<string, unknown>];
  python?: [method: string, args: unknown[], kwargs?: Record<string, unknown>];
};

/**
 * The Python SDK in `processes` long-lived processes (test/helpers/sdk-driver.py), a JSON line per
 * call: each key's calls go to one of them, in order, so a key's client is one client.
 */
export function pythonDrivers(baseUrl: string, processes: number) {
  const drivers = Array.from({ length: processes }, () => pythonDriver(baseUrl));
  const slot = (key: string) => [...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % drivers.length;
  return {
    call: (key: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}) => drivers[slot(key)]!.call(key, method, args, kwargs),
    close: () => drivers.forEach((d) => d.close()),
  };
}

/** The Python SDK in one long-lived process (test/helpers/sdk-driver.py), a JSON line per call. */
export function pythonDriver(baseUrl: string) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "LD_PRELOAD" && !name.startsWith("FAKETIME"))) as NodeJS.ProcessEnv;
  const child: ChildProcessWithoutNullStreams = spawn("python3", ["test/helpers/sdk-driver.py"], {
    env: { ...inherited, PYTHONPATH: "sdk-python", AGENTDRAFT_BASE_URL: baseUrl },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const waiting = new Map<number, (a: Answer) => void>();
  let next = 0;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const answer = JSON.parse(line) as Answer & { id: number };
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  return {
    call(key: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}): Promise<Answer> {
      const id = ++next;
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`the Python SDK driver exited: ${stderr}`));
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ id, key, method, args, kwargs })}\n`);
      });
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Makes a call one way: each answers with an HTTP-like status and the body (a problem for errors). */
export function ways(api: Api, mcp: Mcp, baseUrl: () => string, python: Pick<ReturnType<typeof pythonDriver>, "call">) {
  const sdks = new Map<string, AgentDraftClient>();
  const mcps = new Map<string, Promise<Awaited<ReturnType<Mcp["connect"]>>>>();
  return {
    async make(way: Way, key: string, call: Call, approvalId?: string): Promise<Answer> {
      const headers: Record<string, string> = approvalId ? { "agentdraft-approval-id": approvalId } : {};
      switch (way) {
        case "rest": {
          const res = await api(`/api${call.path}`, { key, method: call.method, body: call.body, headers });
          return { status: res.status, body: res.json };
        }
        case "sdk": {
          if (!sdks.has(key)) sdks.set(key, createAgentDraftClient({ apiKey: key, baseUrl: baseUrl(), maxRetries: 0 } as never));
          const client = sdks.get(key)! as unknown as Record<string, (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>>;
          const { data, error, response } = await client[call.method]!(call.path, { body: call.body, headers });
          return { status: response.status, body: data ?? error };
        }
        case "mcp": {
          if (!call.mcp) throw new Error(`no MCP tool for ${call.method} ${call.path}`);
          if (!mcps.has(key)) mcps.set(key, mcp.connect(key));
          const [tool, args] = call.mcp;
          const result = await mcp.call(await mcps.get(key)!, tool, approvalId ? { ...args, approval_id: approvalId } : args);
          if (result.isError) return { status: Number(result.structuredContent?.status ?? 500), body: result.structuredContent };
          return { status: 200, body: result.structuredContent };
        }
        case "python": {
          if (!call.python) throw new Error(`no Python SDK method for ${call.method} ${call.path}`);
          const [method, args, kwargs = {}] = call.python;
          return python.call(key, method, args, approvalId ? { ...kwargs, headers: headers } : kwargs);
        }
      }
    },
    async close() {
      for (const c of mcps.values()) await (await c).close();
    },
  };
}
