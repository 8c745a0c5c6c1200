import { afterEach } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export type ToolResult = CallToolResult & { structuredContent?: any };

/**
 * The official MCP client over Streamable HTTP against a test server's /api/mcp, the key as a
 * bearer token (none: unauthenticated). Clients a test opens are closed after it.
 */
export function mcpClients(url: () => string) {
  const open: Client[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  async function connect(key?: string): Promise<Client> {
    const client = new Client({ name: "agentdraft-tests", version: "1.0.0" });
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url()}/api/mcp`), { requestInit: { headers } }));
    open.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  return { connect, call };
}
