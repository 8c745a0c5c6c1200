import { withApiKey } from "@/lib/api/with-api-key";
import { created } from "@/lib/api/responses";
import { addAgentNoteOp } from "@/lib/audit/note-operation";
import { addAgentNote } from "@/lib/audit/agent-notes";
import { serializeAuditEntry } from "@/lib/audit/serialize";

// POST /api/v1/audit/entries — an agent records why it acted
export const POST = withApiKey(addAgentNoteOp, async ({ actor, body }) => created(serializeAuditEntry(await addAgentNote(actor, body))));
