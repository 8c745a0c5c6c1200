// The public entry of lib/domains/handoffs: what another domain may use of it (a domain never reaches into another's files).
export { handoffEnvelopeSchema } from "./schemas";
export { serializeHandoff } from "./serialize";
