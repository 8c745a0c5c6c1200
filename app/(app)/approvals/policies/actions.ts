"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createPolicy, deletePolicy } from "@/lib/domains/approvals/policies";
import { escalationInput, setEscalation } from "@/lib/domains/approvals/escalation";
import { policyInput } from "@/lib/domains/approvals/schemas";
import { builtinChangeInput, changeBuiltinPolicy, startBuiltinChange } from "@/lib/domains/approvals/builtin-policies";
import type { DecisionOptions } from "@/lib/domains/approvals/decide-with-passkey";
import { BUILTIN_TITLE } from "./builtin-labels";

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

/** Step one of a change to a built-in rule: a passkey challenge bound to exactly this change, for an owner's browser prompt. */
export async function startBuiltinChangeAction(input: z.input<typeof builtinChangeInput>): Promise<ActionState<DecisionOptions>> {
  return runMemberAction("owner", "change the built-in protection", builtinChangeInput, input, async ({ member }, change) => {
    return { ok: true, data: await startBuiltinChange(memberActor(member), change) };
  });
}

const builtinChangeConfirmed = z.object({
  change: builtinChangeInput,
  /** The WebAuthn assertion (JSON) over the challenge `startBuiltinChangeAction` issued for this change. */
  assertion: z.string().min(1).max(10_000),
});

/** Step two: the change, made only with a fresh user-verified passkey assertion over that challenge (audited). */
export async function changeBuiltinAction(input: z.input<typeof builtinChangeConfirmed>): Promise<ActionState> {
  return runMemberAction("owner", "change the built-in protection", builtinChangeConfirmed, input, async ({ member }, { change, assertion }) => {
    const state = await changeBuiltinPolicy(memberActor(member), change, assertion);
    revalidatePath("/approvals/policies");
    const rule = `Built-in rule “${BUILTIN_TITLE[state.key]}”`;
    if (!state.on) return { ok: true, message: `${rule} is off.` };
    return { ok: true, message: `${rule} is on${state.holds_above === null ? "" : `: holds above priority ${state.holds_above} wait`}.` };
  });
}
