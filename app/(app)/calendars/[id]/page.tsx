import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { listAgents } from "@/lib/domains/agents/list-agents";
import { calendarTimeline, type TimelineItem } from "@/lib/domains/calendars/timeline";
import { getCalendar } from "@/lib/domains/calendars/calendars";
import { AppError } from "@/lib/platform/errors";
import { linkOfCalendar } from "@/lib/domains/calendar-sync/links";
import { Card, PageHeader, linkClass, secondaryButtonClass } from "../../_components/ui";
import { hasRole } from "@/lib/domains/members/roles";
import { viewerTimeZone } from "@/lib/domains/auth/viewer-time-zone";
import { addDays, isTimeZone, startOfZonedDay, weekdayIndex, zoneName, zonedClock, zonedDateTime, zonedDay } from "@/lib/platform/time/zoned";
import { CalendarSettings, TimelineActions } from "./calendar-admin";

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

function Block({ item, dayStart, dayEnd, label, tz, source }: { item: TimelineItem; dayStart: number; dayEnd: number; label: string; tz: string; source: string }) {
  const length = dayEnd - dayStart;
  const start = Math.max(item.start.getTime(), dayStart);
  const end = Math.min(item.end.getTime(), dayEnd);
  const top = ((start - dayStart) / length) * 100;
  const height = Math.max(((end - start) / length) * 100, 2.5);
  const hhmm = (d: Date) => zonedClock(d, tz);
  const hold = item.kind === "hold";
  return (
    <li
      className={`absolute inset-x-1 overflow-hidden rounded-md border px-2 py-0.5 text-xs leading-tight ${BLOCK_STYLE[item.kind]}`}
      style={{ top: `${top}%`, height: `${height}%` }}
      title={`${blockName(item.kind, source)} ${item.id}: ${hhmm(item.start)}–${hhmm(item.end)} ${zoneName(item.start, tz)}`}
      data-testid={`timeline-${item.kind}`}
    >
      <span className="font-semibold">{blockName(item.kind, source)}</span>
      {item.kind === "external" ? "" : ` · ${label}`} · {hhmm(item.start)}–{hhmm(item.end)}
      {hold ? ` · priority ${item.priority} · held until ${hhmm(item.expiresAt!)}` : ""}
    </li>
  );
}

function DayColumn({ day, items, names, tall, tz, source }: { day: string; items: TimelineItem[]; names: Map<string, string>; tall: boolean; tz: string; source: string }) {
  const dayStart = startOfZonedDay(day, tz).getTime();
  const dayEnd = startOfZonedDay(addDays(day, 1), tz).getTime();
  const mine = items.filter((i) => i.start.getTime() < dayEnd && i.end.getTime() > dayStart);
  return (
    <div className="min-w-0">
      <h3 className="mb-1 text-center text-xs font-semibold text-slate-700">{new Date(`${day}T12:00:00Z`).toUTCString().slice(0, 11)}</h3>
      <ol className={`relative rounded-md border border-slate-200 bg-[linear-gradient(to_bottom,var(--color-slate-100)_1px,transparent_1px)] ${tall ? "h-[960px] bg-[length:100%_40px]" : "h-[576px] bg-[length:100%_24px]"}`}>
        {mine.map((item) => (
          <Block key={item.id} item={item} dayStart={dayStart} dayEnd={dayEnd} tz={tz} source={source} label={item.agentId ? (names.get(item.agentId) ?? item.agentId) : "workspace key"} />
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
              <DayColumn key={d} day={d} items={timeline.items} names={names} tall={view === "day"} tz={tz} source={source} />
            ))}
          </div>
        </div>
        <h2 className="sr-only">In this range</h2>
        <ul className="sr-only">
          {timeline.items.map((i) => (
            <li key={i.id}>
              {i.kind === "external" ? `busy in ${source}` : `${i.kind} ${i.id} by ${i.agentId ? (names.get(i.agentId) ?? i.agentId) : "workspace key"}`} from {zonedDateTime(i.start, tz)} to {zonedDateTime(i.end, tz)} {zoneName(i.start, tz)}
              {i.expiresAt ? `, held until ${zonedDateTime(i.expiresAt, tz)}` : ""}
            </li>
          ))}
        </ul>
      </Card>
      {isAdmin ? <TimelineActions calendarId={id} items={timeline.items} names={names} format={(d) => zonedDateTime(d, tz)} /> : null}
      {isAdmin ? <CalendarSettings calendar={timeline.calendar} /> : null}
    </>
  );
}
