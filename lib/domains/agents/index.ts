// The public entry of lib/domains/agents: what another domain may use of it (a domain never reaches into another's files).
export { findAgent } from "./find-agent";
export { listAgents } from "./list-agents";
export { agentSchema } from "./schemas";
export { serializeAgent } from "./serialize";
