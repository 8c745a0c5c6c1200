import type { Metadata } from "next";
import Link from "next/link";
import { requireMember } from "@/lib/domains/auth/current-member";
import { hasRole } from "@/lib/domains/members/roles";
import { listCalendars } from "@/lib/domains/calendars/calendars";
import { ActionForm } from "../_components/action-form";
import { Card, Empty, Field, PageHeader, inputClass, linkClass } from "../_components/ui";
import { createCalendarAction } from "./actions";

export const metadata: Metadata = { title: "Calendars" };

export default async function CalendarsPage() {
  const { member, workspace } = await requireMember();
  const calendars = await listCalendars(workspace.id, { limit: 100 });
  return (
    <>
      <PageHeader title="Calendars" description="Bookable resources — people, rooms, clusters. Agents hold time on them and commit it; nothing can double-book." />
      {hasRole(member.role, "admin") ? (
        <Card title="Create a calendar" id="create-calendar">
          <ActionForm action={createCalendarAction} submit="Create calendar" className="grid gap-4 sm:grid-cols-[1fr_2fr_1fr_auto] sm:items-end">
            <Field label="Name" name="name">
              <input id="name" name="name" required maxLength={100} className={inputClass} placeholder="staging cluster" />
            </Field>
            <Field label="Description (optional)" name="description">
              <input id="description" name="description" maxLength={500} className={inputClass} />
            </Field>
            <Field label="Time zone" name="timezone">
              <input id="timezone" name="timezone" defaultValue="UTC" className={inputClass} />
            </Field>
          </ActionForm>
        </Card>
      ) : null}
      <Card title="All calendars" id="all-calendars">
        {calendars.items.length === 0 ? (
          <Empty>No calendars yet. Agents can create them with POST /api/v1/calendars.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {calendars.items.map((c) => (
              <li key={c.id} className="flex flex-wrap items-baseline justify-between gap-2 py-3">
                <Link href={`/calendars/${c.id}`} className={linkClass}>
                  {c.name}
                </Link>
                <span className="text-xs text-slate-600">
                  {c.timezone} · <code className="font-mono">{c.id}</code>
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
