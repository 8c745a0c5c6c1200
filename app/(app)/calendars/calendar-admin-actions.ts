"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { updateCalendar } from "@/lib/domains/calendars/update-calendar";
import { changeHold } from "@/lib/domains/holds/change-hold";
import { cancelEvent } from "@/lib/domains/calendars/events";

const calendarId = z.string().min(1).max(100);

export async function updateCalendarAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = z.object({
    calendar_id: calendarId,
    name: z.string().max(200),
    timezone: z.string().max(100),
    description: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), z.string().max(1000).nullable()),
  });
  return runMemberAction("admin", "change calendars", schema, form, async ({ member }, { calendar_id, ...input }) => {
    const row = await updateCalendar(memberActor(member), calendar_id, input);
    revalidatePath(`/calendars/${calendar_id}`);
    revalidatePath("/calendars");
    return { ok: true, message: `Saved: ${row.name}, times in ${row.timezone}.` };
  });
}

// Both go through the conflict engine's own statements (agentdraft_change_hold, agentdraft_cancel_event):
// audited with the member as actor, and the webhooks go to the hold's or event's agent.
export async function releaseHoldAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "release holds", z.object({ calendar_id: calendarId, hold_id: z.string().min(1).max(100) }), form, async ({ member }, { calendar_id, hold_id }) => {
    await changeHold(memberActor(member), hold_id, "release");
    revalidatePath(`/calendars/${calendar_id}`);
    return { ok: true, message: `Hold ${hold_id} released; its agent is told (hold.released).` };
  });
}

export async function cancelEventAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "cancel events", z.object({ calendar_id: calendarId, event_id: z.string().min(1).max(100) }), form, async ({ member }, { calendar_id, event_id }) => {
    await cancelEvent(memberActor(member), event_id);
    revalidatePath(`/calendars/${calendar_id}`);
    return { ok: true, message: `Event ${event_id} cancelled; its agent is told (event.cancelled).` };
  });
}
