"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/auth/member-action";
import { memberActor } from "@/lib/members/memberships";
import { decideApproval } from "@/lib/approvals/decide-approval";

const decisionInput = z.object({
  approval_id: z.string().min(1),
  decision: z.enum(["approve", "deny"]),
  note: z.string().max(2000).optional(),
});

export async function decideApprovalAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "decide approvals", decisionInput, form, async ({ member }, input) => {
    const result = await decideApproval(memberActor(member), input.approval_id, input.decision, input.note);
    revalidatePath("/approvals");
    const outcome = result.status === "pending" ? "Recorded: it still needs more approvals." : `Recorded: the approval is now ${result.status}.`;
    return { ok: true, message: outcome };
  });
}
