"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/auth/member-action";
import { memberActor } from "@/lib/members/memberships";
import { createCalendar } from "@/lib/calendars/calendars";
import { createCalendarInput } from "@/lib/calendars/schemas";

export async function createCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "create calendars", createCalendarInput, form, async ({ member }, input) => {
    const calendar = await createCalendar(memberActor(member), input);
    revalidatePath("/calendars");
    return { ok: true, message: `Calendar ${calendar.name} created (${calendar.id}).` };
  });
}
