import { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ApiKeyScope } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import type { AuthenticatedKey } from "../../platform/api/authenticate";

/** Who calls a tool: the authenticated key, acting as itself (and its agent), as on /api/v1. */
export type ToolContext = {
  key: AuthenticatedKey;
  actor: Actor & { type: "key" };
  requestId: string;
};

/**
 * The REST request a write tool is the same as, so both share one idempotency store. `method`:
 * POST unless said (a PATCH is guarded by the version it names; its MCP retries are kept here too).
 */
export type WriteRequest = { method?: "POST" | "PATCH"; path: string; body?: unknown; status?: 200 | 201 };

export type Annotations = Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">>;

export type McpTool<S extends z.ZodRawShape = z.ZodRawShape> = {
  name: string;
  title: string;
  description: string;
  /** The API key scope the tool needs (as its REST operation does); undefined: any key. */
  scope?: ApiKeyScope;
  input: S;
  annotations: Annotations;
  /** Set for tools that change state: they accept `idempotency_key`. */
  write?: (args: z.output<z.ZodObject<S>>) => WriteRequest;
  /** Results are mail content from external senders, and are fenced as such. */
  externalContent?: boolean;
  run: (ctx: ToolContext, args: z.output<z.ZodObject<S>>) => Promise<unknown>;
};

export function defineTool<S extends z.ZodRawShape>(tool: McpTool<S>): McpTool<S> {
  return tool;
}

export const READ_ONLY: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * Reading that changes what the server knows: reading mail as the inbox's agent marks it read and
 * taints the agent with untrusted content. Not read-only, yet the same call twice changes nothing
 * more, so it needs no idempotency_key.
 */
export const MARKS_READ: Annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const idempotencyKeyArg = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe("Makes this call safe to retry: the first result is stored for 24 hours and returned again for the same key and arguments.");

/** An approved approval a taint policy asked for (approval_required): spent on exactly this call's action. */
export const approvalIdArg = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .describe("appr_...: the approval an approval_required answer opened, once approved; it is spent on exactly this action");

export const idArg = (what: string) => z.string().min(1).max(100).describe(what);
