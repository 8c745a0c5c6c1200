"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { changeLease } from "@/lib/domains/leases/change-lease";

const releaseInput = z.object({ lease_id: z.string().min(1).max(64) });

/** Admins free a resource an agent holds (audited as the member). */
export async function releaseLeaseAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "release leases", releaseInput, form, async ({ member }, input) => {
    const lease = await changeLease(memberActor(member), input.lease_id, "release");
    revalidatePath("/leases");
    return { ok: true, message: `Released ${lease.resource} (token ${lease.fencingToken}).` };
  });
}
