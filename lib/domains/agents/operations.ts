import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import { agentSchema, createAgentInput } from "./schemas";
import { updateAgentInput } from "./update-agent";

export const createAgentOp = defineOperation({
  method: "POST",
  path: "/v1/agents",
  operationId: "createAgent",
  summary: "Create an agent",
  description: "Needs a workspace-wide key: an agent-bound key cannot create agents.",
  tag: "Agents",
  body: createAgentInput,
  responses: { 201: { description: "The agent", schema: agentSchema } },
});

export const listAgentsOp = defineOperation({
  method: "GET",
  path: "/v1/agents",
  operationId: "listAgents",
  summary: "List agents, newest first",
  description: "An agent-bound key sees only its own agent.",
  tag: "Agents",
  query: paginationQuery,
  responses: { 200: { description: "A page of agents", schema: listOf(agentSchema) } },
});

export const getAgentOp = defineOperation({
  method: "GET",
  path: "/v1/agents/{id}",
  operationId: "getAgent",
  summary: "Retrieve an agent",
  tag: "Agents",
  responses: { 200: { description: "The agent", schema: agentSchema } },
});

export const updateAgentOp = defineOperation({
  method: "PATCH",
  path: "/v1/agents/{id}",
  operationId: "updateAgent",
  summary: "Update an agent (description, priority ceiling)",
  description:
    "Needs a workspace-wide key. max_priority (0-100, default 100) is the agent's priority ceiling: a key bound to it asking for a higher priority on a hold or a lease gets 403 priority_above_ceiling.",
  tag: "Agents",
  body: updateAgentInput,
  responses: { 200: { description: "The agent", schema: agentSchema } },
});
