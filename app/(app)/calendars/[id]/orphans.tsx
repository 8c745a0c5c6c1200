import type { ReactNode } from "react";
import type { CalendarOrphanRow } from "@/db/schema";
import { Badge, Card } from "../../_components/ui";

/** Why the drift check reported an orphan, in words. */
const REASON_TEXT: Record<string, string> = {
  duplicate_copy: "a second copy of an event AgentDraft booked",
  unknown_event: "tagged with an event AgentDraft never put in this calendar",
  removal_failed: "a copy AgentDraft meant to remove",
  event_not_confirmed: "a copy of an event no longer booked",
  removed_by_agentdraft: "a copy AgentDraft had removed",
};

/**
 * Open orphans of the calendar (issue #32): events in the linked calendar tagged as AgentDraft's
 * that AgentDraft does not stand behind. Left in the person's calendar; an admin dismisses one
 * once dealt with (audited): `dismiss` is the admin's form for one (DismissOrphanForm), absent for others.
 */
export function OrphansCard({ orphans, source, format, dismiss }: { orphans: CalendarOrphanRow[]; source: string; format: (d: Date) => string; dismiss?: (orphan: CalendarOrphanRow) => ReactNode }) {
  return (
    <Card title={`Unexplained events in ${source} (${orphans.length})`} id="orphans">
      <p className="mb-3 text-sm text-slate-700">
        These events in {source} carry AgentDraft&apos;s tag, but AgentDraft did not book them there (or no longer does). AgentDraft leaves them alone: check each in {source}, delete it there if it
        should not be, then an admin dismisses it here.
      </p>
      <ul className="divide-y divide-slate-100 text-sm" aria-label={`Unexplained events in ${source}`}>
        {orphans.map((o) => (
          <li key={o.id} className="flex flex-wrap items-start justify-between gap-3 py-2" data-testid="orphan">
            <div>
              <p className="flex flex-wrap items-center gap-2">
                <Badge tone="amber">{REASON_TEXT[o.reason] ?? o.reason}</Badge>
                <span className="font-mono text-xs text-slate-700">{o.providerEventId}</span>
              </p>
              <p className="mt-1 text-slate-800">
                {o.providerStart && o.providerEnd ? `${format(o.providerStart)} – ${format(o.providerEnd)}` : "time unknown"}
                {o.taggedEventId ? ` · tagged ${o.taggedEventId}` : ""} · found {format(o.createdAt)}
              </p>
            </div>
            {dismiss?.(o)}
          </li>
        ))}
      </ul>
    </Card>
  );
}
