"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { approvalLimitsInput, setApprovalLimits } from "@/lib/domains/workspaces/approval-limits";

export async function setApprovalLimitsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change approval limits", approvalLimitsInput, form, async ({ member }, input) => {
    const row = await setApprovalLimits(memberActor(member), input);
    revalidatePath("/settings");
    return { ok: true, message: `Each agent may have ${row.maxPendingApprovalsPerAgent} approvals pending at once.` };
  });
}
