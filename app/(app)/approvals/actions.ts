"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { decideWithPasskey, startDecision, type DecisionOptions } from "@/lib/domains/approvals/decide-with-passkey";
import { extendBoundHolds, extendBoundHoldsInput } from "@/lib/domains/approvals/extend-bound-holds";

const startInput = z.object({
  approval_id: z.string().min(1).max(100),
  decision: z.enum(["approve", "deny"]),
});

const decisionInput = startInput.extend({
  note: z.string().max(2000).optional(),
  /** The WebAuthn assertion (JSON) over the challenge `startDecisionAction` issued for this decision. */
  assertion: z.string().max(10_000).optional(),
});

/** Step one: a passkey challenge bound to this approval and verdict, for the browser's prompt. */
export async function startDecisionAction(input: z.input<typeof startInput>): Promise<ActionState<DecisionOptions>> {
  return runMemberAction("approver", "decide approvals", startInput, input, async ({ member }, data) => {
    const options = await startDecision(memberActor(member), data.approval_id, data.decision);
    return { ok: true, data: options };
  });
}

/** Step two: the decision, recorded only with a fresh user-verified passkey assertion over that challenge. */
export async function decideApprovalAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "decide approvals", decisionInput, form, async ({ member }, input) => {
    const result = await decideWithPasskey(memberActor(member), input.approval_id, input.decision, input.note, input.assertion);
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
