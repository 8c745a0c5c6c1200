/**
 * AgentDraft's operations as tools for the Vercel AI SDK (`ai` v5 or newer):
 *
 *   import { agentDraftTools } from "@agentdraft/client/ai";
 *   const { text } = await generateText({ model, tools: agentDraftTools({ apiKey, baseUrl }), prompt });
 *
 * Names, descriptions and input schemas are the MCP server's (generated into
 * ./ai-tool-definitions.ts from lib/composition/mcp/tools). Each tool calls the REST API through the SDK
 * client: the same retries and Idempotency-Key on every write (the model's idempotency_key, or one
 * the client makes). A failure comes back to the model as a tool result, `{ error: { code, detail, ... } }`
 * (the API's RFC 9457 problem), never as a thrown exception.
 */
import { jsonSchema, tool, type Tool } from "ai";
import { APPROVAL_HEADER, createAgentDraftClient, type AgentDraftClient, type ClientOptions } from "./client.js";
import { TOOL_DEFINITIONS, type ToolDefinition } from "./ai-tool-definitions.js";
import { toAgentDraftError } from "./errors.js";

export { TOOL_DEFINITIONS, type ToolDefinition };

export type AgentDraftToolName = Exclude<(typeof TOOL_DEFINITIONS)[number]["name"], (typeof MCP_ONLY)[number]>;

/**
 * MCP tools without a toolkit twin: wait_for_events is a long-poll for MCP clients; in code, read
 * the live stream with `client.events()` instead.
 */
export const MCP_ONLY = ["wait_for_events"] as const;

/**
 * Tools whose effect reaches people or cannot be taken back: mail that leaves (send, reply), time
 * booked or given away (commit_hold, release_hold), approvals spent or withdrawn, leases freed.
 * `requireApproval: "consequential"` asks the app's user before the model may run them.
 */
export function isConsequential(name: AgentDraftToolName): boolean {
  const def = TOOL_DEFINITIONS.find((t) => t.name === name);
  return Boolean(def && (def.annotations.openWorldHint || def.annotations.destructiveHint || name === "commit_hold" || name === "consume_approval"));
}

type Route = { method: "GET" | "POST" | "PATCH"; path: string; id?: string; rename?: Record<string, string> };

/** The REST operation each tool is (an argument named `id` fills the path's {id}). */
const ROUTES: Record<Exclude<AgentDraftToolName, "next_handoff">, Route> = {
  whoami: { method: "GET", path: "/v1/me" },
  list_inboxes: { method: "GET", path: "/v1/inboxes" },
  list_messages: { method: "GET", path: "/v1/inboxes/{id}/messages", id: "inbox_id" },
  get_message: { method: "GET", path: "/v1/messages/{id}", id: "message_id" },
  list_threads: { method: "GET", path: "/v1/inboxes/{id}/threads", id: "inbox_id" },
  get_thread: { method: "GET", path: "/v1/threads/{id}", id: "thread_id" },
  label_message: { method: "POST", path: "/v1/messages/{id}/labels", id: "message_id" },
  label_thread: { method: "POST", path: "/v1/threads/{id}/labels", id: "thread_id" },
  send_message: { method: "POST", path: "/v1/inboxes/{id}/messages", id: "inbox_id" },
  reply_to_message: { method: "POST", path: "/v1/messages/{id}/reply", id: "message_id" },
  forward_message: { method: "POST", path: "/v1/messages/{id}/forward", id: "message_id" },
  create_draft: { method: "POST", path: "/v1/inboxes/{id}/drafts", id: "inbox_id" },
  update_draft: { method: "PATCH", path: "/v1/drafts/{id}", id: "draft_id" },
  list_drafts: { method: "GET", path: "/v1/inboxes/{id}/drafts", id: "inbox_id" },
  send_draft: { method: "POST", path: "/v1/drafts/{id}/send", id: "draft_id" },
  list_calendars: { method: "GET", path: "/v1/calendars" },
  check_availability: { method: "GET", path: "/v1/calendars/{id}/availability", id: "calendar_id" },
  list_calendar_events: { method: "GET", path: "/v1/calendars/{id}/events", id: "calendar_id" },
  list_calendar_orphans: { method: "GET", path: "/v1/calendar-orphans" },
  place_hold: { method: "POST", path: "/v1/holds" },
  get_hold: { method: "GET", path: "/v1/holds/{id}", id: "hold_id" },
  extend_hold: { method: "POST", path: "/v1/holds/{id}/extend", id: "hold_id" },
  commit_hold: { method: "POST", path: "/v1/holds/{id}/commit", id: "hold_id" },
  release_hold: { method: "POST", path: "/v1/holds/{id}/release", id: "hold_id" },
  check_approval_policy: { method: "POST", path: "/v1/approvals/check" },
  list_approval_policies: { method: "GET", path: "/v1/approval-policies" },
  request_approval: { method: "POST", path: "/v1/approvals" },
  get_approval: { method: "GET", path: "/v1/approvals/{id}", id: "approval_id" },
  await_approval: { method: "GET", path: "/v1/approvals/{id}", id: "approval_id", rename: { wait_seconds: "wait" } },
  list_approvals: { method: "GET", path: "/v1/approvals" },
  cancel_approval: { method: "POST", path: "/v1/approvals/{id}/cancel", id: "approval_id" },
  consume_approval: { method: "POST", path: "/v1/approvals/{id}/consume", id: "approval_id" },
  query_audit: { method: "GET", path: "/v1/audit" },
  verify_audit_chain: { method: "GET", path: "/v1/audit/verify" },
  handoff: { method: "POST", path: "/v1/handoffs" },
  complete_handoff: { method: "POST", path: "/v1/handoffs/{id}/complete", id: "handoff_id" },
  fail_handoff: { method: "POST", path: "/v1/handoffs/{id}/fail", id: "handoff_id" },
  get_handoff: { method: "GET", path: "/v1/handoffs/{id}", id: "handoff_id" },
  list_handoffs: { method: "GET", path: "/v1/handoffs" },
  add_audit_note: { method: "POST", path: "/v1/audit/entries" },
  acquire_lease: { method: "POST", path: "/v1/leases" },
  renew_lease: { method: "POST", path: "/v1/leases/{id}/renew", id: "lease_id" },
  release_lease: { method: "POST", path: "/v1/leases/{id}/release", id: "lease_id" },
  get_lease: { method: "GET", path: "/v1/leases/{id}", id: "lease_id" },
  list_leases: { method: "GET", path: "/v1/leases" },
  verify_fencing_token: { method: "POST", path: "/v1/leases/verify" },
  claim_message: { method: "POST", path: "/v1/messages/{id}/claim", id: "message_id" },
  release_message: { method: "POST", path: "/v1/messages/{id}/release", id: "message_id" },
  complete_message: { method: "POST", path: "/v1/messages/{id}/complete", id: "message_id" },
};

/** The REST request a tool call makes (exported for tests: it must be the MCP tool's own). */
export function toolRequest(name: Exclude<AgentDraftToolName, "next_handoff">, args: Record<string, unknown>) {
  const route = ROUTES[name];
  const { idempotency_key, approval_id, ...rest } = args;
  const headers: Record<string, string> = {};
  if (typeof idempotency_key === "string") headers["idempotency-key"] = idempotency_key;
  // approval_id is a header on the gated writes, and a path argument on the approval tools.
  if (approval_id !== undefined && route.id !== "approval_id") {
    if (typeof approval_id === "string") headers[APPROVAL_HEADER] = approval_id;
  } else if (approval_id !== undefined) rest.approval_id = approval_id;
  let id: unknown;
  if (route.id) {
    id = rest[route.id];
    delete rest[route.id];
  }
  for (const [from, to] of Object.entries(route.rename ?? {})) {
    if (from in rest) {
      rest[to] = rest[from];
      delete rest[from];
    }
  }
  const get = route.method === "GET";
  return { method: route.method, path: route.path, id, query: get ? rest : undefined, body: get ? undefined : rest, headers };
}

export type ToolError = { error: { code: string; status: number; detail: string; errors?: { field: string; message: string }[] } & Record<string, unknown> };

export type AgentDraftToolsOptions = (ClientOptions | { client: AgentDraftClient }) & {
  /** Offer only these tools (default: all). */
  only?: readonly AgentDraftToolName[];
  /** Leave these out. */
  except?: readonly AgentDraftToolName[];
  /**
   * Set the AI SDK's `needsApproval` (ai v6+): true for every write, "consequential" for the tools
   * `isConsequential` names, or a list of names. Default: none (server-side approval policies still apply).
   */
  requireApproval?: boolean | "consequential" | readonly AgentDraftToolName[];
};

const failure = (code: string, status: number, detail: string): ToolError => ({ error: { code, status, detail } });

/**
 * AgentDraft's tools for `generateText` / `streamText` / an Agent: holds, approvals, inboxes,
 * handoffs, leases, audit. Pass an API key (agent-bound keys act as their agent) or a client.
 */
export function agentDraftTools(options: AgentDraftToolsOptions): Record<AgentDraftToolName, Tool<Record<string, unknown>, unknown>> {
  const client = "client" in options ? options.client : createAgentDraftClient(options);
  const only = options.only ? new Set<string>(options.only) : null;
  const except = new Set<string>(options.except ?? []);
  const approval = options.requireApproval ?? false;
  const needsApproval = (d: ToolDefinition) =>
    approval === true ? !d.annotations.readOnlyHint : approval === "consequential" ? isConsequential(d.name as AgentDraftToolName) : Array.isArray(approval) && approval.includes(d.name as AgentDraftToolName);

  const tools: Record<string, Tool<Record<string, unknown>, unknown>> = {};
  for (const def of TOOL_DEFINITIONS as readonly ToolDefinition[]) {
    const name = def.name as AgentDraftToolName;
    if ((MCP_ONLY as readonly string[]).includes(name) || (only && !only.has(name)) || except.has(name)) continue;
    tools[name] = tool<Record<string, unknown>, unknown>({
      title: def.title,
      description: def.description,
      inputSchema: jsonSchema<Record<string, unknown>>(def.inputSchema as Parameters<typeof jsonSchema>[0]),
      ...(needsApproval(def) ? { needsApproval: true } : {}),
      execute: (args) => call(client, name, args ?? {}),
    });
  }
  return tools as Record<AgentDraftToolName, Tool<Record<string, unknown>, unknown>>;
}

async function call(client: AgentDraftClient, name: AgentDraftToolName, args: Record<string, unknown>): Promise<unknown> {
  try {
    if (name === "next_handoff") return await nextHandoff(client, args);
    const req = toolRequest(name, args);
    if (req.path.includes("{id}") && (typeof req.id !== "string" || req.id === "")) {
      return failure("validation_failed", 400, `${ROUTES[name].id} is required: the id of the resource (${name}).`);
    }
    const init = { params: { path: { id: req.id as string }, query: req.query }, body: req.body, headers: req.headers } as never;
    const res =
      req.method === "GET" ? await client.GET(req.path as never, init) : req.method === "PATCH" ? await client.PATCH(req.path as never, init) : await client.POST(req.path as never, init);
    return settle(res);
  } catch (err) {
    return failure("client_error", 0, err instanceof Error ? err.message : String(err));
  }
}

function settle(res: { data?: unknown; error?: unknown; response: Response }): unknown {
  if (res.error === undefined && res.response.ok) return res.data ?? {};
  const { problem } = toAgentDraftError(res.error, res.response);
  return { error: problem } satisfies ToolError;
}

/** next_handoff has no single REST twin: the oldest pending handoff for this agent, claimed. */
async function nextHandoff(client: AgentDraftClient, args: Record<string, unknown>): Promise<unknown> {
  const { type, agent_id, ttl_seconds, worker } = args as { type?: string; agent_id?: string; ttl_seconds?: number; worker?: string };
  const page = await client.GET("/v1/handoffs", { params: { query: { status: "pending", role: "received", type, agent_id, limit: 100 } } });
  if (!page.data) return settle(page);
  for (const h of [...page.data.data].reverse()) {
    const res = await client.POST("/v1/handoffs/{id}/claim", { params: { path: { id: h.id } }, body: { ttl_seconds: ttl_seconds ?? 60, worker } });
    if (res.data) return { handoff: res.data };
    const code = (res.error as { code?: string } | undefined)?.code;
    // Another worker took it first, or it lapsed: try the next one.
    if (code !== "handoff_not_pending" && code !== "handoff_claimed") return settle(res);
  }
  return { handoff: null };
}
