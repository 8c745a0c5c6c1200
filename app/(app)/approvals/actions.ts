"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/auth/member-action";
import { memberActor } from "@/lib/members/memberships";
import { decideApproval } from "@/lib/approvals/decide-approval";
import { extendBoundHolds, extendBoundHoldsInput } from "@/lib/approvals/extend-bound-holds";

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

/** A person keeps the approval's live holds until the approval's own expiry (past the hold TTL cap binding gives them). */
export async function extendBoundHoldsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "extend the holds an approval keeps", extendBoundHoldsInput, form, async ({ member }, input) => {
    const extended = await extendBoundHolds(member, input.approval_id);
    revalidatePath(`/approvals/${input.approval_id}`);
    return { ok: true, message: extended.length ? `Kept ${extended.length === 1 ? "its hold" : `its ${extended.length} holds`} until the approval expires.` : "Nothing to extend: its live holds already last until it expires." };
  });
}
