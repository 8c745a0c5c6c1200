"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { setUserTimeZone } from "@/lib/domains/auth/viewer-time-zone";

export async function setTimeZoneAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = z.object({ time_zone: z.string().trim().max(64).transform((v) => (v === "" ? null : v)) });
  return runMemberAction("viewer", "change your time zone", schema, form, async ({ user, member }, { time_zone }) => {
    await setUserTimeZone(memberActor(member), user.id, time_zone);
    revalidatePath("/", "layout");
    return { ok: true, message: time_zone ? `Times are shown in ${time_zone}.` : "Times follow your browser's time zone." };
  });
}
