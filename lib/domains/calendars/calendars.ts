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
  const a = actorJson(actor);
  // One statement: the calendar and its audit entry (an idempotent request's record joins it).
  const out = await effect<Record<string, unknown>>(
    sql`select to_jsonb(c) as out, agentdraft_audit(${JSON.stringify(a)}::jsonb, ${a.agent_id}, 'calendar.created', 'calendar', c.id,
          jsonb_build_object('name', c.name, 'timezone', c.timezone)) from c`,
    sql`c as (insert into calendars (id, workspace_id, name, description, timezone)
              values (${newId("calendar")}, ${actor.workspaceId}, ${name}, ${description ?? null}, ${timezone}) returning *)`,
  );
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
