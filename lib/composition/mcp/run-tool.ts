import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { requireScope } from "../../platform/api/authenticate";
import { requestFingerprint, runIdempotent, validateIdempotencyKey } from "../../platform/api/idempotency";
import { problemResponse, toProblem, type ProblemBody } from "../../platform/api/problem";
import { json } from "../../platform/api/responses";
import { assertSafeJson } from "../../platform/api/input-guards";
import type { McpTool, ToolContext } from "./define-tool";
import { externalContentResult, jsonResult, problemResult } from "./tool-results";

type Args = Record<string, unknown> & { idempotency_key?: string };

/**
 * Calls a tool as its REST operation would run: scope first, then the lib function. With an
 * idempotency_key, the call goes through the API's idempotency store under the same
 * fingerprint as the REST request (method, path, body), so it runs at most once per key.
 */
export async function runTool(tool: McpTool, ctx: ToolContext, args: Args): Promise<CallToolResult> {
  try {
    requireScope(ctx.key, tool.scope);
    assertSafeJson(args);
    const { idempotency_key: idempotencyKey, ...rest } = args;
    if (tool.write && idempotencyKey !== undefined) {
      const request = tool.write(rest);
      const fingerprint = requestFingerprint(request.method ?? "POST", `/api${request.path}`, request.body === undefined ? "" : JSON.stringify(request.body));
      const res = await runIdempotent({
        apiKeyId: ctx.key.id,
        key: validateIdempotencyKey(idempotencyKey),
        fingerprint,
        execute: () => tool.run(ctx, rest).then((data) => json(data, request.status ?? 200)),
        render: (err) => problemResponse(err, ctx.requestId),
      });
      const body = (await res.json()) as unknown;
      return res.ok ? success(tool, body) : problemResult(body as ProblemBody);
    }
    return success(tool, await tool.run(ctx, rest));
  } catch (err) {
    return problemResult(toProblem(err, ctx.requestId));
  }
}

const success = (tool: McpTool, data: unknown) => (tool.externalContent ? externalContentResult(data) : jsonResult(data));
