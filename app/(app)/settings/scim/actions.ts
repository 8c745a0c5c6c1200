"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createScimToken, revokeScimToken } from "@/lib/domains/scim/tokens";
import { setScimOwnerGroup } from "@/lib/domains/scim/owner-group-switch";

const blankToNull = (v: unknown) => (typeof v === "string" && v.trim() === "" ? null : v);
const createForm = z.object({ name: z.preprocess(blankToNull, z.string().trim().max(100).nullish()) });

export type CreatedScimToken = { token: string; id: string; prefix: string };

export async function createScimTokenAction(_prev: ActionState<CreatedScimToken>, form: FormData): Promise<ActionState<CreatedScimToken>> {
  return runMemberAction("admin", "create SCIM tokens", createForm, form, async ({ member }, input) => {
    const { row, token } = await createScimToken(memberActor(member), input);
    revalidatePath("/settings/scim");
    return { ok: true, data: { token, id: row.id, prefix: row.prefix } };
  });
}

export async function revokeScimTokenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "revoke SCIM tokens", z.object({ token_id: z.string().min(1).max(100) }), form, async ({ member }, input) => {
    const row = await revokeScimToken(memberActor(member), input.token_id);
    revalidatePath("/settings/scim");
    return { ok: true, message: `SCIM token ${row.prefix}… revoked: your identity provider can no longer provision with it.` };
  });
}

const ownerGroupForm = z.object({ enabled: z.enum(["true", "false"]).transform((v) => v === "true") });

/** Only an owner, as the session says (runMemberAction and setScimOwnerGroup both check the signed-in member, never the form). */
export async function setScimOwnerGroupAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("owner", "let SCIM grant the owner role", ownerGroupForm, form, async ({ member }, input) => {
    const on = await setScimOwnerGroup(member, input);
    revalidatePath("/settings/scim");
    return { ok: true, message: on ? "SCIM may now grant and take the owner role through the agentdraft-owner group." : "SCIM no longer changes owners; nobody's role changed." };
  });
}
