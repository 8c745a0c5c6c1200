import { defineOperation } from "../../platform/api/operation";
import { agentNoteEntrySchema, agentNoteInput, AGENT_NOTE_LIMITS } from "./note-schemas";

export const addAgentNoteOp = defineOperation({
  method: "POST",
  path: "/v1/audit/entries",
  operationId: "addAgentNote",
  summary: "Record why an agent acted: an agent.* note in the audit trail",
  description:
    "The note is an audit entry like every other (chained, append-only), with the action agent.<verb> (names AgentDraft writes itself are refused). " +
    `summary is at most ${AGENT_NOTE_LIMITS.maxSummaryChars} characters; trigger, context and each part of outside_call at most ${AGENT_NOTE_LIMITS.maxPartBytes} bytes of JSON ` +
    `and ${AGENT_NOTE_LIMITS.maxJsonDepth} levels; the whole note at most ${AGENT_NOTE_LIMITS.maxNoteBytes} bytes. The trace_id (or the x-trace-id header) puts it on a trace: one the note's agent started, a new one, or one whose handoffs it sent or received (otherwise 404). ` +
    "An agent-bound key notes as its own agent; a workspace-wide key names agent_id. A resource of type handoff must be a handoff of that agent's own graph (otherwise 404).",
  tag: "Audit",
  scope: "audit",
  body: agentNoteInput,
  responses: { 201: { description: "The entry", schema: agentNoteEntrySchema } },
});
