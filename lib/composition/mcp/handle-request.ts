import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AppError } from "../../platform/errors";
import { env } from "../../platform/config/env";
import { assertReadyToServe } from "../../platform/config/startup-gate";
import { admitRequest } from "../../platform/api/admit-request";
import { problemResponse } from "../../platform/api/problem";
import { newRequestId } from "../../platform/api/request-ids";
import { readBody } from "../../platform/api/read-body";
import { createMcpServer } from "./create-server";
import { checkMcpOrigin } from "../../domains/oauth/mcp-origin";
import { resourceMetadataUrl } from "../../domains/oauth/metadata";

/**
 * POST /api/mcp: the Streamable HTTP transport in stateless mode. The bearer key is checked
 * and rate limited exactly as on /api/v1; each request gets a fresh server acting as that key.
 */
export async function handleMcpRequest(req: Request): Promise<Response> {
  const requestId = newRequestId();
  const headers = new Headers({ "x-request-id": requestId });
  try {
    await assertReadyToServe();
    await checkMcpOrigin(req);
    const { key, traceId } = await admitRequest(req, headers, null, { accessTokens: true });
    const parsedBody = await readMcpMessage(req);

    const server = createMcpServer({
      key,
      actor: { type: "key", workspaceId: key.workspaceId, keyId: key.id, agentId: key.agentId, traceId, requestId, via: "mcp" },
      requestId,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: env().API_MAX_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      const res = await transport.handleRequest(req, { parsedBody });
      const out = new Response(res.body, res);
      headers.forEach((v, k) => out.headers.set(k, v));
      return out;
    } finally {
      await server.close();
    }
  } catch (err) {
    if (err instanceof AppError && err.code === "unauthorized") {
      // RFC 9728 §5.1: tell an OAuth client where to start (and, for a bad token, that it is one).
      const tokenSent = req.headers.has("authorization") ? ', error="invalid_token"' : "";
      headers.set("www-authenticate", `Bearer resource_metadata="${resourceMetadataUrl()}"${tokenSent}`);
      return problemResponse(new AppError("unauthorized", err.message), requestId, headers);
    }
    return problemResponse(err, requestId, headers);
  }
}

/**
 * One JSON-RPC message per request. Batches (dropped from MCP in 2025-06-18) would let one
 * rate-limit token buy a hundred tool calls, long-polls and chain verifications: refused.
 */
async function readMcpMessage(req: Request): Promise<unknown> {
  if (req.method !== "POST") return undefined;
  const text = await readBody(req, env().API_MAX_BODY_BYTES);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (err) {
    throw new AppError("malformed_json", `The request body is not valid JSON: ${(err as Error).message}.`);
  }
  if (Array.isArray(message)) {
    throw new AppError("invalid_request", "JSON-RPC batches are not accepted: send one MCP message per request (each is authenticated and rate limited on its own).");
  }
  return message;
}

/** Stateless: no server-initiated stream (GET) and no session to end (DELETE). */
export function mcpMethodNotAllowed(): Response {
  return problemResponse(
    new AppError("method_not_allowed", "This MCP server is stateless: send JSON-RPC requests with POST."),
    newRequestId(),
    { allow: "POST" },
  );
}
