import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { transaction, queryable } from "../../db/transaction";
import { calendars, type CalendarRow } from "../../db/schema";
import { newId } from "../ids";
import { notFound } from "../errors";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { page, type Pagination } from "../api/pagination";
import { createCalendarInput } from "./schemas";

export async function createCalendar(actor: Actor, input: z.input<typeof createCalendarInput>): Promise<CalendarRow> {
  const { name, description, timezone } = createCalendarInput.parse(input);
  return transaction(async (tx) => {
    const [row] = await tx
      .insert(calendars)
      .values({ id: newId("calendar"), workspaceId: actor.workspaceId, name, description: description ?? null, timezone })
      .returning();
    await appendAudit(tx, [{ actor, action: "calendar.created", resource: { type: "calendar", id: row!.id }, summary: { name, timezone } }]);
    return row!;
  });
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
