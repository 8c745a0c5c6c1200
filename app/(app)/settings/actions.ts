"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { signOut } from "@/lib/domains/auth/auth";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { removePasskey, removePasskeyInput, signOutEverywhere } from "@/lib/domains/passkeys/passkeys";
import { renameWorkspace, renameWorkspaceInput } from "@/lib/domains/workspaces/rename-workspace";
import { currentSessionToken } from "@/lib/domains/auth/session-token";
import { proveEmail, proveEmailInput, requestEmailProof } from "@/lib/domains/members/email-proof";

/** Ends this browser's session. */
export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}

/** Ends every session of the signed-in person, this one included. */
export async function signOutEverywhereAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const noFields = z.object({});
  const result = await runMemberAction<typeof noFields, undefined>("viewer", "sign out", noFields, form, async ({ user }) => {
    await signOutEverywhere(user.id);
    return { ok: true };
  });
  if (result?.ok) await signOut({ redirectTo: "/sign-in" });
  return result;
}

export async function removePasskeyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("viewer", "remove passkeys", removePasskeyInput, form, async ({ user }, input) => {
    await removePasskey(user.id, input, await currentSessionToken());
    revalidatePath("/settings");
    return { ok: true, message: "Passkey removed; your other sessions were signed out." };
  });
}

export async function renameWorkspaceAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("owner", "rename the workspace", renameWorkspaceInput, form, async ({ member }, input) => {
    const row = await renameWorkspace(member, input);
    revalidatePath("/", "layout");
    return { ok: true, message: `Workspace renamed to ${row.name}.` };
  });
}

/** Mails a one-time code to the signed-in person's address (through the mail provider only). */
export async function requestEmailProofAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("viewer", "prove your email address", z.object({}), form, async ({ user }) => {
    const { email } = await requestEmailProof(user.id);
    return { ok: true, message: `A code was mailed to ${email}: enter it below within 15 minutes.` };
  });
}

/** Proves the signed-in person's address with the code from that mail. */
export async function proveEmailAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("viewer", "prove your email address", proveEmailInput, form, async ({ user }, input) => {
    await proveEmail(user.id, input);
    revalidatePath("/", "layout");
    return { ok: true, message: "Your email address is proven." };
  });
}
