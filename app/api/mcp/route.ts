import { handleMcpRequest, mcpMethodNotAllowed } from "@/lib/composition/mcp/handle-request";

// POST /api/mcp — the MCP server (Streamable HTTP, stateless), authenticated by API key
export const POST = handleMcpRequest;
export const GET = mcpMethodNotAllowed;
export const DELETE = mcpMethodNotAllowed;

// `await_approval` waits up to 30 s by default: room for it on Vercel.
export const maxDuration = 60;
