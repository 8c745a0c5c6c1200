import { z } from "zod";
import { API_KEY_SCOPES } from "../../../db/schema";
import { defineOperation } from "../../platform/api/operation";
import type { AuthenticatedKey } from "../../platform/api/authenticate";
import { getWorkspace } from "../workspaces";
import { findAgent } from "../agents";
import { serializeAgent } from "../agents";
import { agentSchema } from "../agents";
import { agentTaint } from "../taint";

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
        reasons: z.array(z.string()).describe("sender_unauthenticated, sender_authentication_failed, injection_signals, tainted_sender"),
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
  responses: { 200: { description: "Who is calling", schema: meSchema } },
});

export async function describeKey(key: AuthenticatedKey): Promise<z.infer<typeof meSchema>> {
  // The door read the workspace's name and the agent with the key; elsewhere they are read here.
  const name = key.workspaceName ?? (await getWorkspace(key.workspaceId)).name;
  const agentRow = key.agentId ? (key.agent ?? (await findAgent(key.workspaceId, key.agentId))) : null;
  const agent = agentRow ? serializeAgent(agentRow) : null;
  const taint = await agentTaint({ type: "key", workspaceId: key.workspaceId, keyId: key.id, agentId: key.agentId });
  return {
    object: "me",
    workspace: { id: key.workspaceId, name },
    agent,
    api_key: { id: key.id, mode: key.mode },
    scopes: key.scopes ?? [...API_KEY_SCOPES],
    taint: taint ? { message_id: taint.message_id, from: taint.from, reasons: taint.reasons, read_at: taint.read_at!, tainted_until: taint.tainted_until! } : null,
  };
}
