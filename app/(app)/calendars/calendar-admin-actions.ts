"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { updateCalendar } from "@/lib/domains/calendars/update-calendar";
import { changeHold } from "@/lib/domains/holds/change-hold";
import { cancelEvent } from "@/lib/domains/calendars/events";
import { dismissOrphan } from "@/lib/domains/calendar-sync/orphans";
import { orphanNote } from "@/lib/domains/calendar-sync/orphan-schemas";

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

// An orphan (an event in the linked calendar tagged as AgentDraft's that AgentDraft does not stand
// behind) is left in the person's calendar; dismissing it records that a person has seen it (audited).
export async function dismissOrphanAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = z.object({ calendar_id: calendarId, orphan_id: z.string().min(1).max(100), note: orphanNote.optional() });
  return runMemberAction("admin", "dismiss orphans", schema, form, async ({ member }, { calendar_id, orphan_id, note }) => {
    const { changed } = await dismissOrphan(memberActor(member), orphan_id, note);
    revalidatePath(`/calendars/${calendar_id}`);
    return { ok: true, message: changed ? `Orphan ${orphan_id} dismissed.` : `Orphan ${orphan_id} was already resolved.` };
  });
}
