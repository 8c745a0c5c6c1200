import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { queryable } from "../../../db/transaction";
import { effect } from "../../../db/effect";
import { rowFromJson } from "../../../db/row-json";
import { calendars, type CalendarRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { scheduleSeal } from "../../platform/audit/seal-chain";
import { actorJson } from "../../platform/events/outbox";
import { page, type Pagination } from "../../platform/api/pagination";
import { createCalendarInput } from "./schemas";

export async function createCalendar(actor: Actor, input: z.input<typeof createCalendarInput>): Promise<CalendarRow> {
  const { name, description, timezone } = createCalendarInput.parse(input);
  // One statement (agentdraft_create_calendar): the calendar and its audit entry; the door and an
  // idempotent request's record ride in it (db/effect.ts).
  const out = await effect<Record<string, unknown>>(sql`
    select agentdraft_create_calendar(${JSON.stringify(actorJson(actor))}::jsonb, ${newId("calendar")}, ${name}, ${description ?? null}::text, ${timezone}) as out`);
  await scheduleSeal(actor.workspaceId, new Date());
  return rowFromJson(calendars, out);
}

export async function getCalendar(workspaceId: string, id: string): Promise<CalendarRow> {
  const q = await queryable();
  const [row] = await q.select().from(calendars).where(and(eq(calendars.id, id), eq(calendars.workspaceId, workspaceId)));
  if (!row) throw notFound("calendar", id);
  return row;
}

export async function listCalendars(workspaceId: string, p: Pagination) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(calendars.workspaceId, workspaceId)];
  if (p.starting_after) where.push(lt(calendars.id, p.starting_after));
  const rows = await q.select().from(calendars).where(and(...where)).orderBy(desc(calendars.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}
