"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { clearTaint } from "@/lib/domains/taint/clear-taint";

const clearInput = z.object({ reader: z.string().min(1).max(100) });

/** A person lifts an agent's taint (SPEC §13): approvers decide what agents may do, so they may. */
export async function clearTaintAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "clear an agent's taint", clearInput, form, async ({ member }, input) => {
    const n = await clearTaint(memberActor(member), input.reader);
    revalidatePath("/agents");
    return { ok: true, message: `Cleared (${n} untrusted message${n === 1 ? "" : "s"}). Reading untrusted mail again taints it again.` };
  });
}
