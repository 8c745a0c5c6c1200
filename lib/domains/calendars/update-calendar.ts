import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { calendars, type CalendarRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { createCalendarInput } from "./schemas";

export const updateCalendarInput = z
  .object({
    name: createCalendarInput.shape.name.optional(),
    description: createCalendarInput.shape.description,
    timezone: createCalendarInput.shape.timezone.unwrap().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: "give at least one field to change", path: [] });

/** Renames a calendar, or changes its description or time zone (what its times are shown in). */
export async function updateCalendar(actor: Actor, id: string, input: z.input<typeof updateCalendarInput>): Promise<CalendarRow> {
  const parsed = updateCalendarInput.parse(input);
  const changes = Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined));
  return transaction(async (tx) => {
    const [row] = await tx
      .update(calendars)
      .set(changes)
      .where(and(eq(calendars.workspaceId, actor.workspaceId), eq(calendars.id, id)))
      .returning();
    if (!row) throw notFound("calendar", id);
    await appendAudit(tx, [{ actor, action: "calendar.updated", resource: { type: "calendar", id }, summary: changes }]);
    return row;
  });
}
