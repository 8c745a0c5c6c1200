import { z } from "zod";
import { API_KEY_SCOPES } from "../../../db/schema";
import { defineOperation } from "../../platform/api/operation";
import type { AuthenticatedKey } from "../../platform/api/authenticate";
import { sql } from "drizzle-orm";
import { effect } from "../../../db/effect";
import { rowFromJson } from "../../../db/row-json";
import { agents } from "../../../db/schema";
import { agentSchema, serializeAgent } from "../agents";
import { agentTaintJson, type AgentTaint } from "../taint";

export const meSchema = z
  .object({
    object: z.literal("me"),
    workspace: z.object({ id: z.string(), name: z.string() }),
    agent: agentSchema.nullable().describe("set when the key is bound to one agent"),
    api_key: z.object({ id: z.string(), mode: z.enum(["live", "test"]) }),
    scopes: z.array(z.enum(API_KEY_SCOPES)).describe("what this key may do"),
    taint: z
      .object({
        message_id: z.string(),
        from: z.string(),
        reasons: z.array(z.string()).describe("sender_outside, sender_unauthenticated, sender_authentication_failed, injection_signals, tainted_sender"),
        read_at: z.iso.datetime(),
        tainted_until: z.iso.datetime(),
      })
      .nullable()
      .describe("set while this key's agent is tainted by untrusted mail it read (the last such message): actions the workspace's policies mark untrusted_trace need a person's approval until tainted_until, or until a person clears it in the web app"),
  })
  .meta({ id: "Me" });

export const getMeOp = defineOperation({
  method: "GET",
  path: "/v1/me",
  operationId: "getMe",
  summary: "The workspace, agent and scopes of the calling key",
  tag: "Keys",
  door: "statement",
  responses: { 200: { description: "Who is calling", schema: meSchema } },
});

/**
 * Who is calling, in one statement: the workspace's name, the key's agent and its live taint.
 * The door rides in it once this instance knows the key (getMeOp's `door: "statement"`), so a
 * GET /v1/me is one round trip.
 */
export async function describeKey(key: AuthenticatedKey): Promise<z.infer<typeof meSchema>> {
  const actor = { type: "key" as const, workspaceId: key.workspaceId, keyId: key.id, agentId: key.agentId };
  const read = await effect<{ workspace_name: string; agent: Record<string, unknown> | null; taint: AgentTaint | null }>(sql`
    select jsonb_build_object(
      'workspace_name', (select w.name from workspaces w where w.id = ${key.workspaceId}),
      'agent', ${key.agentId ? sql`(select to_jsonb(a) from agents a where a.id = ${key.agentId} and a.workspace_id = ${key.workspaceId})` : sql`null::jsonb`},
      'taint', ${agentTaintJson(actor)}) as out`);
  const agentRow = read.agent ? rowFromJson(agents, read.agent) : null;
  return {
    object: "me",
    workspace: { id: key.workspaceId, name: read.workspace_name },
    agent: agentRow ? serializeAgent(agentRow) : null,
    api_key: { id: key.id, mode: key.mode },
    scopes: key.scopes ?? [...API_KEY_SCOPES],
    taint: read.taint,
  };
}
