"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createAgent } from "@/lib/domains/agents/create-agent";
import { createAgentInput } from "@/lib/domains/agents/schemas";
import { z } from "zod";
import { updateAgent } from "@/lib/domains/agents/update-agent";

export async function createAgentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "create agents", createAgentInput, form, async ({ member }, input) => {
    const agent = await createAgent(memberActor(member), input);
    revalidatePath("/agents");
    return { ok: true, message: `Agent ${agent.name} created (${agent.id}).` };
  });
}

const ceilingInput = z.object({ agent_id: z.string().min(1), max_priority: z.coerce.number().int().min(0).max(100) });

/** Admins set an agent's priority ceiling (SPEC §12). */
export async function setAgentCeilingAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change agents", ceilingInput, form, async ({ member }, input) => {
    const agent = await updateAgent(memberActor(member), input.agent_id, { max_priority: input.max_priority });
    revalidatePath("/agents");
    return { ok: true, message: `${agent.name} may ask for priority ${agent.maxPriority} at most.` };
  });
}
