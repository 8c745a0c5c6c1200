import type { CalendarOrphanRow, CalendarRow } from "@/db/schema";
import type { TimelineItem } from "@/lib/domains/calendars/timeline";
import { allTimeZones } from "@/lib/platform/time/zoned";
import { ActionForm } from "../../_components/action-form";
import { Card, Empty, Field, dangerButtonClass, inputClass, secondaryButtonClass } from "../../_components/ui";
import { cancelEventAction, dismissOrphanAction, releaseHoldAction, updateCalendarAction } from "../calendar-admin-actions";

/** For admins: release a live hold or cancel a committed event of this range. */
export function TimelineActions({ calendarId, items, names, format }: { calendarId: string; items: TimelineItem[]; names: Map<string, string>; format: (d: Date) => string }) {
  const actionable = items.filter((i) => i.kind !== "external");
  return (
    <Card title="Holds and events in this range" id="timeline-actions">
      {actionable.length === 0 ? (
        <Empty>Nothing to release or cancel here.</Empty>
      ) : (
        <ul className="divide-y divide-slate-100">
          {actionable.map((i) => (
            <li key={i.id} className="flex flex-wrap items-center justify-between gap-3 py-2 text-sm" data-testid={`admin-${i.kind}-${i.id}`}>
              <span>
                <span className="font-medium">{i.kind === "hold" ? "Hold" : "Event"}</span> {format(i.start)}–{format(i.end)} ·{" "}
                {i.agentId ? (names.get(i.agentId) ?? i.agentId) : "workspace key"} <code className="font-mono text-xs text-slate-600">{i.id}</code>
              </span>
              {i.kind === "hold" ? (
                <ActionForm action={releaseHoldAction} submit={<>Release<span className="sr-only"> hold {i.id}</span></>} submitClassName={dangerButtonClass}>
                  <input type="hidden" name="calendar_id" value={calendarId} />
                  <input type="hidden" name="hold_id" value={i.id} />
                </ActionForm>
              ) : (
                <ActionForm action={cancelEventAction} submit={<>Cancel<span className="sr-only"> event {i.id}</span></>} submitClassName={dangerButtonClass}>
                  <input type="hidden" name="calendar_id" value={calendarId} />
                  <input type="hidden" name="event_id" value={i.id} />
                </ActionForm>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** For admins: rename the calendar or change its description or time zone. */
export function CalendarSettings({ calendar }: { calendar: CalendarRow }) {
  return (
    <Card title="Settings" id="calendar-settings">
      <ActionForm action={updateCalendarAction} submit="Save" className="grid gap-4 sm:grid-cols-[1fr_2fr_1fr_auto] sm:items-end">
        <input type="hidden" name="calendar_id" value={calendar.id} />
        <Field label="Name" name="name">
          <input id="name" name="name" required maxLength={100} defaultValue={calendar.name} className={inputClass} />
        </Field>
        <Field label="Description" name="description">
          <input id="description" name="description" maxLength={500} defaultValue={calendar.description ?? ""} className={inputClass} />
        </Field>
        <Field label="Time zone" name="timezone">
          <input id="timezone" name="timezone" required defaultValue={calendar.timezone} className={inputClass} list="time-zones" />
        </Field>
      </ActionForm>
      <datalist id="time-zones">
        {allTimeZones().map((tz) => (
          <option key={tz} value={tz} />
        ))}
      </datalist>
    </Card>
  );
}

/** For admins: dismiss an orphan once dealt with in the provider's calendar, with an optional note (audited). */
export function DismissOrphanForm({ calendarId, orphan }: { calendarId: string; orphan: CalendarOrphanRow }) {
  return (
    <ActionForm action={dismissOrphanAction} className="flex flex-wrap items-end gap-2" submit={<>Dismiss<span className="sr-only"> orphan {orphan.providerEventId}</span></>} submitClassName={secondaryButtonClass}>
      <input type="hidden" name="calendar_id" value={calendarId} />
      <input type="hidden" name="orphan_id" value={orphan.id} />
      <label className="text-xs text-slate-700">
        Note <span className="sr-only">for orphan {orphan.providerEventId}</span>
        <input name="note" maxLength={500} className={`${inputClass} mt-1`} placeholder="optional" />
      </label>
    </ActionForm>
  );
}
