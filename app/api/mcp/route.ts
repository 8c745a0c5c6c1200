import { handleMcpRequest, mcpMethodNotAllowed } from "@/lib/mcp/handle-request";

// POST /api/mcp — the MCP server (Streamable HTTP, stateless), authenticated by API key
export const POST = handleMcpRequest;
export const GET = mcpMethodNotAllowed;
export const DELETE = mcpMethodNotAllowed;
