"use server";

import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { appUrl } from "@/lib/domains/auth/app-url";
import { createInvitation, createInvitationInput } from "@/lib/domains/invitations/create-invitation";
import { ssoRequiredForEmail } from "@/lib/domains/sso";
import { revokeInvitation, revokeInvitationInput } from "@/lib/domains/invitations/revoke-invitation";
import { changeRole, changeRoleInput } from "@/lib/domains/members/change-role";
import { removeMember, removeMemberInput } from "@/lib/domains/members/remove-member";

export async function inviteAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "invite members", createInvitationInput, form, async ({ member }, input) => {
    const { mail } = await createInvitation(member, input, await appUrl(), undefined, { ssoRequired: await ssoRequiredForEmail(input.email) });
    revalidatePath("/members");
    return {
      ok: true,
      message: mail.status === "sent" ? `Invitation sent to ${input.email}.` : `Invitation for ${input.email} captured: see Captured mail.`,
    };
  });
}

export async function revokeInvitationAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "revoke invitations", revokeInvitationInput, form, async ({ member }, input) => {
    await revokeInvitation(member, input);
    revalidatePath("/members");
    return { ok: true, message: "Invitation revoked." };
  });
}

export async function changeRoleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change roles", changeRoleInput, form, async ({ member }, input) => {
    const updated = await changeRole(member, input);
    revalidatePath("/members");
    return { ok: true, message: `${updated.email} is now ${updated.role}.` };
  });
}

export async function removeMemberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "remove members", removeMemberInput, form, async ({ member }, input) => {
    await removeMember(member, input);
    revalidatePath("/members");
    return { ok: true, message: "Member removed." };
  });
}
