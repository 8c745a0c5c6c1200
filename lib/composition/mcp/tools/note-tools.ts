import { addAgentNote } from "../../../domains/audit/agent-notes";
import { agentNoteInput } from "../../../domains/audit/note-schemas";
import { serializeAuditEntry } from "../../../domains/audit/serialize";
import { defineTool, idempotencyKeyArg } from "../define-tool";

export const addAuditNoteTool = defineTool({
  name: "add_audit_note",
  title: "Record why you acted",
  description:
    "Append an agent.<verb> note to the audit trail: a one-line summary of why, and where it helps the trigger that set you off, the context you " +
    "understood, the exact payload you sent to an outside service with the confirmation it returned, and your model, prompt version and token counts. " +
    "Give the trace_id of the handoff you are working on so the note shows on its trace.",
  scope: "audit",
  input: { ...agentNoteInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: (body) => ({ path: "/v1/audit/entries", body, status: 201 }),
  run: async ({ actor }, args) => serializeAuditEntry(await addAgentNote(actor, agentNoteInput.parse(args))),
});

export const NOTE_TOOLS = [addAuditNoteTool];
