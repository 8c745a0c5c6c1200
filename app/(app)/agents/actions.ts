"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/auth/member-action";
import { memberActor } from "@/lib/members/memberships";
import { createAgent } from "@/lib/agents/create-agent";
import { createAgentInput } from "@/lib/agents/schemas";

export async function createAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "create agents", createAgentInput, form, async ({ member }, input) => {
    const agent = await createAgent(memberActor(member), input);
    revalidatePath("/agents");
    return { ok: true, message: `Agent ${agent.name} created (${agent.id}).` };
  });
}
