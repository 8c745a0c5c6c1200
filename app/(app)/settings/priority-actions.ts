"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { preemptFloorInput, setPreemptFloor } from "@/lib/domains/workspaces/preempt-floor";

export async function setPreemptFloorAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change hold priorities", preemptFloorInput, form, async ({ member }, input) => {
    const row = await setPreemptFloor(memberActor(member), input.hold_preempt_min_priority);
    revalidatePath("/settings");
    return { ok: true, message: row.holdPreemptMinPriority === 0 ? "Any hold may preempt lower ones." : `Holds below priority ${row.holdPreemptMinPriority} never preempt.` };
  });
}
