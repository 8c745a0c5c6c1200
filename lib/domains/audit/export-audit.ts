import { iterateAudit } from "./list-audit";
import { serializeAuditEntry } from "./serialize";
import type { AuditFilters } from "./schemas";

/** Audit entries as JSON Lines, read from the database batch by batch as the client consumes them. */
export function auditExportStream(workspaceId: string, filters: AuditFilters): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const entries = iterateAudit(workspaceId, filters);
  return new ReadableStream({
    async pull(controller) {
      try {
        const next = await entries.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(JSON.stringify(serializeAuditEntry(next.value)) + "\n"));
      } catch (err) {
        console.error("[audit export] failed mid-stream:", err);
        controller.error(err);
      }
    },
    async cancel() {
      await entries.return(undefined);
    },
  });
}
