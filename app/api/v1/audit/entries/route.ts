import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created } from "@/lib/platform/api/responses";
import { addAgentNoteOp } from "@/lib/domains/audit/note-operation";
import { addAgentNote } from "@/lib/domains/audit/agent-notes";
import { serializeAuditEntry } from "@/lib/domains/audit/serialize";

// POST /api/v1/audit/entries — an agent records why it acted
export const POST = withApiKey(addAgentNoteOp, async ({ actor, body }) => created(serializeAuditEntry(await addAgentNote(actor, body))));
