/**
 * Runs the MCP conformance suite's server scenarios (@modelcontextprotocol/conformance) against
 * AgentDraft's MCP server: the app's route handlers on loopback over a fresh embedded database,
 * an agent-bound key, and a small proxy that adds the key to each request (the suite sends no
 * credentials). Scenarios that do not apply are listed, with why, in .ci/mcp-conformance-baseline.yml;
 * the suite fails on a new failure and on a baseline entry that now passes.
 *
 *   CONFORMANCE_NODE=/path/to/node22 CONFORMANCE_CLI=/path/to/conformance/dist/index.js npm run test:mcp-conformance
 *
 * (The suite needs Node 22: .ci/mcp-conformance installs it and the suite into a temporary folder.)
 */
import http from "node:http";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";

const node = process.env.CONFORMANCE_NODE;
const cli = process.env.CONFORMANCE_CLI;
if (!node || !cli) {
  console.error("Set CONFORMANCE_NODE (a Node 22 binary) and CONFORMANCE_CLI (the suite's dist/index.js); .ci/mcp-conformance does both.");
  process.exit(2);
}
const dataDir = mkdtempSync(path.join(tmpdir(), "agentdraft-conformance-"));
Object.assign(process.env, { AGENTDRAFT_DATA_DIR: dataDir, API_RATE_LIMIT_PER_SECOND: "10000", API_RATE_LIMIT_BURST: "10000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "10000", API_WORKSPACE_RATE_LIMIT_BURST: "10000", JOB_RUNNER: "off" });

const { runMigrations } = await import("../db/migrate");
const { createWorkspace } = await import("../lib/domains/workspaces/create-workspace");
const { createAgent } = await import("../lib/domains/agents/create-agent");
const { createKey } = await import("../lib/domains/api-keys/create-key");
const { operatorActor } = await import("../lib/platform/actor");
const { resetEnvCache } = await import("../lib/platform/config/env");
const { startApiServer } = await import("./helpers/api-server");

await runMigrations();
const workspace = await createWorkspace({ name: "Conformance" });
const agent = await createAgent(operatorActor(workspace.id), { name: "conformance-agent" });
const { key } = await createKey(operatorActor(workspace.id), { agent_id: agent.id });
const app = await startApiServer();

// The suite calls the proxy; the proxy adds the key and forwards everything else as sent (Origin and Host included).
const target = new URL(app.url);
const proxy = http.createServer((req, res) => {
  const upstream = http.request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${key}` } },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", () => res.writeHead(502).end());
  req.pipe(upstream);
});
await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
// The deployment's own origin is the one the suite's client uses.
process.env.AUTH_URL = proxyUrl;
resetEnvCache();

const baseline = path.resolve(import.meta.dirname, "../.ci/mcp-conformance-baseline.yml");
const child = spawn(node, [cli, "server", "--url", `${proxyUrl}/api/mcp`, "--expected-failures", baseline, ...process.argv.slice(2)], { stdio: "inherit" });
const code: number = await new Promise((r) => child.on("exit", (c) => r(c ?? 1)));
proxy.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
