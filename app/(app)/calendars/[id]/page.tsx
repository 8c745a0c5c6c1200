import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/auth/current-member";
import { listAgents } from "@/lib/agents/list-agents";
import { calendarTimeline, type TimelineItem } from "@/lib/calendars/timeline";
import { AppError } from "@/lib/errors";
import { linkOfCalendar } from "@/lib/google/links";
import { Card, PageHeader, linkClass, secondaryButtonClass } from "../../_components/ui";

export const metadata: Metadata = { title: "Calendar" };

const DAY_MS = 86_400_000;
const HOURS = Array.from({ length: 24 }, (_, h) => h);
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const hhmm = (d: Date) => d.toISOString().slice(11, 16);

function parseDay(value: string | undefined): Date {
  const d = value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date();
  return Number.isNaN(d.getTime()) ? new Date(`${isoDay(new Date())}T00:00:00Z`) : new Date(`${isoDay(d)}T00:00:00Z`);
}

const BLOCK_STYLE: Record<TimelineItem["kind"], string> = {
  hold: "border-dashed border-amber-500 bg-amber-50 text-amber-950",
  event: "border-indigo-600 bg-indigo-600 text-white",
  external: "border-slate-500 bg-slate-200 text-slate-900",
};
const BLOCK_NAME: Record<TimelineItem["kind"], string> = { hold: "Hold", event: "Booked", external: "Busy in Google" };

function Block({ item, dayStart, label }: { item: TimelineItem; dayStart: number; label: string }) {
  const start = Math.max(item.start.getTime(), dayStart);
  const end = Math.min(item.end.getTime(), dayStart + DAY_MS);
  const top = ((start - dayStart) / DAY_MS) * 100;
  const height = Math.max(((end - start) / DAY_MS) * 100, 2.5);
  const hold = item.kind === "hold";
  return (
    <li
      className={`absolute inset-x-1 overflow-hidden rounded-md border px-2 py-0.5 text-xs leading-tight ${BLOCK_STYLE[item.kind]}`}
      style={{ top: `${top}%`, height: `${height}%` }}
      title={`${BLOCK_NAME[item.kind]} ${item.id}: ${hhmm(item.start)}–${hhmm(item.end)} UTC`}
      data-testid={`timeline-${item.kind}`}
    >
      <span className="font-semibold">{BLOCK_NAME[item.kind]}</span>
      {item.kind === "external" ? "" : ` · ${label}`} · {hhmm(item.start)}–{hhmm(item.end)}
      {hold ? ` · priority ${item.priority} · held until ${item.expiresAt!.toISOString().slice(11, 19)}` : ""}
    </li>
  );
}

function DayColumn({ day, items, names, tall }: { day: Date; items: TimelineItem[]; names: Map<string, string>; tall: boolean }) {
  const dayStart = day.getTime();
  const mine = items.filter((i) => i.start.getTime() < dayStart + DAY_MS && i.end.getTime() > dayStart);
  return (
    <div className="min-w-0">
      <h3 className="mb-1 text-center text-xs font-semibold text-slate-700">{day.toUTCString().slice(0, 11)}</h3>
      <ol className={`relative rounded-md border border-slate-200 bg-[linear-gradient(to_bottom,var(--color-slate-100)_1px,transparent_1px)] ${tall ? "h-[960px] bg-[length:100%_40px]" : "h-[576px] bg-[length:100%_24px]"}`}>
        {mine.map((item) => (
          <Block key={item.id} item={item} dayStart={dayStart} label={item.agentId ? (names.get(item.agentId) ?? item.agentId) : "workspace key"} />
        ))}
      </ol>
    </div>
  );
}

export default async function CalendarPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | undefined>> }) {
  const { workspace } = await requireMember();
  const { id } = await params;
  const query = await searchParams;
  const view = query.view === "week" ? "week" : "day";
  const day = parseDay(query.date);
  const from = view === "week" ? new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS) : day;
  const days = Array.from({ length: view === "week" ? 7 : 1 }, (_, i) => new Date(from.getTime() + i * DAY_MS));
  const to = new Date(from.getTime() + days.length * DAY_MS);

  const timeline = await calendarTimeline(workspace.id, id, from, to).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  const agents = await listAgents(workspace.id, { limit: 100 });
  const googleLink = await linkOfCalendar(workspace.id, id);
  const names = new Map(agents.items.map((a) => [a.id, a.name]));
  const step = view === "week" ? 7 : 1;
  const link = (d: Date, v = view) => `/calendars/${id}?view=${v}&date=${isoDay(d)}`;

  return (
    <>
      <PageHeader title={timeline.calendar.name} description={`${timeline.calendar.description ?? "Holds and committed events."} Times in UTC.`}>
        <nav aria-label="Calendar range" className="flex flex-wrap items-center gap-2">
          <Link className={secondaryButtonClass} href={link(new Date(day.getTime() - step * DAY_MS))}>
            ← Previous
          </Link>
          <Link className={secondaryButtonClass} href={link(new Date())}>
            Today
          </Link>
          <Link className={secondaryButtonClass} href={link(new Date(day.getTime() + step * DAY_MS))}>
            Next →
          </Link>
          <Link className={linkClass} href={link(day, view === "week" ? "day" : "week")} aria-label={view === "week" ? "Show one day" : "Show the week"}>
            {view === "week" ? "Day view" : "Week view"}
          </Link>
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
              <span className="mr-1 inline-block h-3 w-3 rounded-sm border border-slate-500 bg-slate-200 align-middle" aria-hidden /> busy in Google ({googleLink.googleCalendarName ?? googleLink.googleCalendarId}
              {googleLink.syncStatus === "failed" ? `: sync failing, ${googleLink.lastSyncError}` : googleLink.lastSyncedAt ? `, synced ${googleLink.lastSyncedAt.toISOString().slice(0, 16).replace("T", " ")} UTC` : ", first sync pending"})
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
              <DayColumn key={d.toISOString()} day={d} items={timeline.items} names={names} tall={view === "day"} />
            ))}
          </div>
        </div>
        <h2 className="sr-only">In this range</h2>
        <ul className="sr-only">
          {timeline.items.map((i) => (
            <li key={i.id}>
              {i.kind === "external" ? "busy in Google" : `${i.kind} ${i.id} by ${i.agentId ? (names.get(i.agentId) ?? i.agentId) : "workspace key"}`} from {i.start.toISOString()} to {i.end.toISOString()}
              {i.expiresAt ? `, held until ${i.expiresAt.toISOString()}` : ""}
            </li>
          ))}
        </ul>
      </Card>
    </>
  );
}
