import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { calendarTimeline, type TimelineItem } from "@/lib/domains/calendars/timeline";
import { getCalendar } from "@/lib/domains/calendars/calendars";
import { AppError } from "@/lib/platform/errors";
import { linkOfCalendar } from "@/lib/domains/calendar-sync/links";
import { Badge, Card, PageHeader, linkClass, secondaryButtonClass } from "../../_components/ui";
import { hasRole } from "@/lib/domains/members/roles";
import { viewerTimeZone } from "@/lib/domains/auth/viewer-time-zone";
import { addDays, isTimeZone, startOfZonedDay, weekdayIndex, zoneName, zonedClock, zonedDateTime, zonedDay } from "@/lib/platform/time/zoned";
import { eventsNeedingAttention } from "@/lib/domains/calendars/attention";
import type { EventReconciliationRow } from "@/db/schema";
import { CalendarSettings, DismissOrphanForm, TimelineActions } from "./calendar-admin";
import { listOrphans, ORPHANS_SHOWN } from "@/lib/domains/calendar-sync/orphans";
import { OrphansCard } from "./orphans";

export const metadata: Metadata = { title: "Calendar" };

const HOURS = Array.from({ length: 24 }, (_, h) => h);

/** A day (`YYYY-MM-DD`) in the viewer's zone: the one asked for, else today there. */
function parseDay(value: string | undefined, tz: string): string {
  if (value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(new Date(`${value}T00:00:00Z`).getTime())) return new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10);
  return zonedDay(new Date(), tz);
}

const BLOCK_STYLE: Record<TimelineItem["kind"], string> = {
  hold: "border-dashed border-amber-500 bg-amber-50 text-amber-950",
  event: "border-indigo-600 bg-indigo-600 text-white",
  external: "border-slate-500 bg-slate-200 text-slate-900",
};
/** `source`: where imported busy time comes from (the linked calendar's provider). */
const blockName = (kind: TimelineItem["kind"], source: string) => ({ hold: "Hold", event: "Booked", external: `Busy in ${source}` })[kind];

/** What a person did to a committed event in the linked calendar (issue #32), in words. */
const STATE_TEXT: Record<EventReconciliationRow["state"], string> = {
  moved_externally: "moved",
  cancelled_externally: "cancelled",
  conflicted: "double-booked",
  in_sync: "in sync",
};
const PROVIDER_STATUS_TEXT: Record<EventReconciliationRow["providerStatus"], string> = { confirmed: "there", cancelled: "deleted or cancelled", declined: "declined by its attendees" };

function Block({ item, dayStart, dayEnd, label, tz, source, attention }: { item: TimelineItem; dayStart: number; dayEnd: number; label: string; tz: string; source: string; attention?: EventReconciliationRow["state"] }) {
  const length = dayEnd - dayStart;
  const start = Math.max(item.start.getTime(), dayStart);
  const end = Math.min(item.end.getTime(), dayEnd);
  const top = ((start - dayStart) / length) * 100;
  const height = Math.max(((end - start) / length) * 100, 2.5);
  const hhmm = (d: Date) => zonedClock(d, tz);
  const hold = item.kind === "hold";
  return (
    <li
      className={`absolute inset-x-1 overflow-hidden rounded-md border px-2 py-0.5 text-xs leading-tight ${BLOCK_STYLE[item.kind]} ${attention ? "ring-2 ring-red-600 ring-offset-1" : ""}`}
      style={{ top: `${top}%`, height: `${height}%` }}
      title={`${blockName(item.kind, source)} ${item.id}: ${hhmm(item.start)}–${hhmm(item.end)} ${zoneName(item.start, tz)}${attention ? `; ${STATE_TEXT[attention]} in ${source}` : ""}`}
      data-testid={`timeline-${item.kind}`}
      data-attention={attention}
    >
      {attention ? <span className="mr-1 rounded bg-red-600 px-1 font-semibold text-white">{`${STATE_TEXT[attention]} in ${source}`}</span> : null}
      <span className="font-semibold">{blockName(item.kind, source)}</span>
      {item.kind === "external" ? "" : ` · ${label}`} · {hhmm(item.start)}–{hhmm(item.end)}
      {hold ? ` · priority ${item.priority} · held until ${hhmm(item.expiresAt!)}` : ""}
    </li>
  );
}

function DayColumn({ day, items, names, tall, tz, source, attention }: { day: string; items: TimelineItem[]; names: Map<string, string>; tall: boolean; tz: string; source: string; attention: Map<string, EventReconciliationRow["state"]> }) {
  const dayStart = startOfZonedDay(day, tz).getTime();
  const dayEnd = startOfZonedDay(addDays(day, 1), tz).getTime();
  const mine = items.filter((i) => i.start.getTime() < dayEnd && i.end.getTime() > dayStart);
  return (
    <div className="min-w-0">
      <h3 className="mb-1 text-center text-xs font-semibold text-slate-700">{new Date(`${day}T12:00:00Z`).toUTCString().slice(0, 11)}</h3>
      <ol className={`relative rounded-md border border-slate-200 bg-[linear-gradient(to_bottom,var(--color-slate-100)_1px,transparent_1px)] ${tall ? "h-[960px] bg-[length:100%_40px]" : "h-[576px] bg-[length:100%_24px]"}`}>
        {mine.map((item) => (
          <Block key={item.id} item={item} dayStart={dayStart} dayEnd={dayEnd} tz={tz} source={source} attention={item.kind === "event" ? attention.get(item.id) : undefined} label={item.agentId ? (names.get(item.agentId) ?? item.agentId) : "workspace key"} />
        ))}
      </ol>
    </div>
  );
}

export default async function CalendarPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { workspace, member } = await requireMember();
  const { id } = await params;
  const query = await searchParams;
  const { zone: viewerZone } = await viewerTimeZone();
  const view = query.view === "week" ? "week" : "day";
  const calendar = await getCalendar(workspace.id, id).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  // ?tz=calendar shows the calendar's own zone; the viewer's otherwise.
  const calendarZone = isTimeZone(calendar.timezone) ? calendar.timezone : "UTC";
  const tz = query.tz === "calendar" ? calendarZone : viewerZone;
  const day = parseDay(query.date, tz);
  const first = view === "week" ? addDays(day, -weekdayIndex(day)) : day;
  const days = Array.from({ length: view === "week" ? 7 : 1 }, (_, i) => addDays(first, i));
  const from = startOfZonedDay(first, tz);
  const to = startOfZonedDay(addDays(first, days.length), tz);

  const timeline = await calendarTimeline(workspace.id, id, from, to);
  const agents = await listAgents(workspace.id, { limit: 100 });
  const googleLink = await linkOfCalendar(workspace.id, id);
  const needing = await eventsNeedingAttention(workspace.id, id);
  const attention = new Map(needing.map((n) => [n.event.id, n.reconciliation.state]));
  const { items: orphans } = await listOrphans(workspace.id, { calendar_id: id, status: "open", limit: ORPHANS_SHOWN });
  const source = googleLink?.provider === "microsoft" ? "Outlook" : "Google";
  const names = new Map(agents.items.map((a) => [a.id, a.name]));
  const step = view === "week" ? 7 : 1;
  const link = (d: string, v = view) => `/calendars/${id}?view=${v}&date=${d}${query.tz === "calendar" ? "&tz=calendar" : ""}`;
  const isAdmin = hasRole(member.role, "admin");
  const zoneNote =
    calendarZone === viewerZone
      ? `Times in ${tz}.`
      : tz === viewerZone
        ? `Times in your time zone, ${tz}; the calendar's is ${calendarZone}.`
        : `Times in the calendar's time zone, ${tz}; yours is ${viewerZone}.`;

  return (
    <>
      <PageHeader title={timeline.calendar.name} description={`${timeline.calendar.description ?? "Holds and committed events."} ${zoneNote}`}>
        <nav aria-label="Calendar range" className="flex flex-wrap items-center gap-2">
          <Link className={secondaryButtonClass} href={link(addDays(day, -step))}>
            ← Previous
          </Link>
          <Link className={secondaryButtonClass} href={link(zonedDay(new Date(), tz))}>
            Today
          </Link>
          <Link className={secondaryButtonClass} href={link(addDays(day, step))}>
            Next →
          </Link>
          <Link className={linkClass} href={link(day, view === "week" ? "day" : "week")}>
            {view === "week" ? "Day view" : "Week view"}
          </Link>
          {calendarZone !== viewerZone ? (
            <Link className={linkClass} href={`/calendars/${id}?view=${view}&date=${day}${query.tz === "calendar" ? "" : "&tz=calendar"}`}>
              {query.tz === "calendar" ? `Show in my time zone (${viewerZone})` : `Show in the calendar's time zone (${calendarZone})`}
            </Link>
          ) : null}
        </nav>
      </PageHeader>
      {needing.length > 0 ? (
        <Card title={`Needs attention (${needing.length})`} id="attention">
          <p className="mb-3 text-sm text-slate-700">
            A person changed these committed events in {source} after AgentDraft booked them. Nothing is moved back: the agent that booked one can re-book it, or cancel it.
          </p>
          <ul className="divide-y divide-slate-100 text-sm" aria-label="Events needing attention">
            {needing.map(({ event, reconciliation: r }) => (
              <li key={event.id} className="py-2" data-testid="attention-event">
                <p className="flex flex-wrap items-center gap-2">
                  <Badge tone={r.state === "conflicted" ? "amber" : "red"}>{STATE_TEXT[r.state]}</Badge>
                  <span className="font-mono text-xs text-slate-700">{event.id}</span>
                  <span className="text-slate-600">by {event.agentId ? (names.get(event.agentId) ?? event.agentId) : "workspace key"}</span>
                </p>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-slate-800">
                  <dt className="text-slate-600">AgentDraft</dt>
                  <dd>
                    {zonedDateTime(event.startTime, tz)} – {zonedDateTime(event.endTime, tz)} {zoneName(event.startTime, tz)}
                  </dd>
                  <dt className="text-slate-600">{source}</dt>
                  <dd>
                    {r.providerStatus !== "confirmed"
                      ? PROVIDER_STATUS_TEXT[r.providerStatus]
                      : r.providerStart && r.providerEnd
                        ? `${zonedDateTime(r.providerStart, tz)} – ${zonedDateTime(r.providerEnd, tz)} ${zoneName(r.providerStart, tz)}`
                        : "there"}
                    {r.providerChangedBy ? ` (changed by ${r.providerChangedBy})` : ""}
                  </dd>
                  <dt className="text-slate-600">Now conflicts with</dt>
                  <dd>
                    {r.conflicts.length === 0 ? (
                      "nothing"
                    ) : (
                      <ul>
                        {r.conflicts.map((c) => (
                          <li key={c.kind === "event" ? c.id : `${c.link_id}:${c.provider_event_id}`}>
                            {c.kind === "event" ? `event ${c.id}` : `busy time in ${c.provider === "microsoft" ? "Outlook" : "Google"}`}, {zonedDateTime(new Date(c.start_time), tz)} – {zonedDateTime(new Date(c.end_time), tz)}
                          </li>
                        ))}
                      </ul>
                    )}
                  </dd>
                </dl>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      {orphans.length > 0 ? (
        <OrphansCard orphans={orphans} source={source} format={(d) => `${zonedDateTime(d, tz)} ${zoneName(d, tz)}`} dismiss={isAdmin ? (o) => <DismissOrphanForm calendarId={id} orphan={o} /> : undefined} />
      ) : null}
      <Card>
        <p className="mb-3 flex flex-wrap gap-4 text-xs text-slate-700">
          <span>
            <span className="mr-1 inline-block h-3 w-3 rounded-sm bg-indigo-600 align-middle" aria-hidden /> committed event
          </span>
          <span>
            <span className="mr-1 inline-block h-3 w-3 rounded-sm border border-dashed border-amber-500 bg-amber-50 align-middle" aria-hidden /> live hold (tentative until it expires)
          </span>
          {googleLink ? (
            <span>
              <span className="mr-1 inline-block h-3 w-3 rounded-sm border border-slate-500 bg-slate-200 align-middle" aria-hidden /> busy in {source} ({googleLink.googleCalendarName ?? googleLink.googleCalendarId}
              {googleLink.syncStatus === "failed" ? `: sync failing, ${googleLink.lastSyncError}` : googleLink.lastSyncedAt ? `, synced ${zonedDateTime(googleLink.lastSyncedAt, tz)} ${zoneName(googleLink.lastSyncedAt, tz)}` : ", first sync pending"})
            </span>
          ) : null}
          <span>{timeline.items.length} in this range</span>
        </p>
        <div className="flex gap-2">
          <ol className={`relative w-10 shrink-0 text-right text-[10px] text-slate-500 ${view === "week" ? "mt-5 h-[576px]" : "mt-5 h-[960px]"}`} aria-hidden>
            {HOURS.map((h) => (
              <li key={h} className="absolute right-1 -translate-y-1/2 leading-none" style={{ top: `calc(${(h / 24) * 100}% + 1px)` }}>
                {String(h).padStart(2, "0")}:00
              </li>
            ))}
          </ol>
          <div className={`grid min-w-0 flex-1 gap-1 ${view === "week" ? "grid-cols-7" : "grid-cols-1"}`}>
            {days.map((d) => (
              <DayColumn key={d} day={d} items={timeline.items} names={names} tall={view === "day"} tz={tz} source={source} attention={attention} />
            ))}
          </div>
        </div>
        <h2 className="sr-only">In this range</h2>
        <ul className="sr-only">
          {timeline.items.map((i) => (
            <li key={i.id}>
              {i.kind === "external" ? `busy in ${source}` : `${i.kind} ${i.id} by ${i.agentId ? (names.get(i.agentId) ?? i.agentId) : "workspace key"}`} from {zonedDateTime(i.start, tz)} to {zonedDateTime(i.end, tz)} {zoneName(i.start, tz)}
              {i.expiresAt ? `, held until ${zonedDateTime(i.expiresAt, tz)}` : ""}
              {attention.get(i.id) ? `, needs attention: ${STATE_TEXT[attention.get(i.id)!]} in ${source}` : ""}
            </li>
          ))}
        </ul>
      </Card>
      {isAdmin ? <TimelineActions calendarId={id} items={timeline.items} names={names} format={(d) => zonedDateTime(d, tz)} /> : null}
      {isAdmin ? <CalendarSettings calendar={timeline.calendar} /> : null}
    </>
  );
}
