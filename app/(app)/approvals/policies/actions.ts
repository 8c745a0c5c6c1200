"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createPolicy, deletePolicy } from "@/lib/domains/approvals/policies";
import { escalationInput, setEscalation } from "@/lib/domains/approvals/escalation";
import { policyInput } from "@/lib/domains/approvals/schemas";

// Form fields arrive as strings: empty means "not set", numbers are coerced before the shared schema checks them.
const blankToNull = (v: unknown) => (v === "" || v === undefined ? null : v);
const policyForm = z
  .object({
    name: z.string(),
    action_class: z.string(),
    agent_id: z.preprocess(blankToNull, z.string().nullable()),
    min_amount: z.preprocess(blankToNull, z.coerce.number().nullable()),
    required_approvals: z.coerce.number(),
    expires_in_hours: z.coerce.number().positive().max(720),
    inbox_id: z.preprocess(blankToNull, z.string().nullable()).optional(),
    recipient_domain: z.preprocess(blankToNull, z.string().nullable()).optional(),
    new_recipients: z.preprocess((v) => v === "on", z.boolean()),
    untrusted_trace: z.preprocess((v) => v === "on", z.boolean()),
    min_priority: z.preprocess(blankToNull, z.coerce.number().nullable()).optional(),
    resource: z.preprocess(blankToNull, z.string().nullable()).optional(),
  })
  .transform(({ expires_in_hours, ...rest }) => ({ ...rest, expires_in_seconds: Math.round(expires_in_hours * 3600) }));

export async function createPolicyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage approval policies", policyForm, form, async ({ member }, fields) => {
    const policy = await createPolicy(memberActor(member), policyInput.parse(fields));
    revalidatePath("/approvals/policies");
    return { ok: true, message: `Policy “${policy.name}” created.` };
  });
}

export async function deletePolicyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage approval policies", z.object({ policy_id: z.string().min(1) }), form, async ({ member }, { policy_id }) => {
    await deletePolicy(memberActor(member), policy_id);
    revalidatePath("/approvals/policies");
    return { ok: true, message: "Policy deleted." };
  });
}

export async function setEscalationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change approval escalation", escalationInput, form, async ({ member }, setting) => {
    await setEscalation(member, setting ? { after_minutes: setting.seconds / 60, role: setting.role } : { after_minutes: "" });
    revalidatePath("/approvals/policies");
    return { ok: true, message: setting ? `Escalation on: ${setting.role}s are mailed after ${setting.seconds / 60} minutes.` : "Escalation off." };
  });
}
