"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createCalendar } from "@/lib/domains/calendars/calendars";
import { createCalendarInput } from "@/lib/domains/calendars/schemas";

export async function createCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "create calendars", createCalendarInput, form, async ({ member }, input) => {
    const calendar = await createCalendar(memberActor(member), input);
    revalidatePath("/calendars");
    return { ok: true, message: `Calendar ${calendar.name} created (${calendar.id}).` };
  });
}
