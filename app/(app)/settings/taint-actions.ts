"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { setTaintSettings, taintSettingsInput } from "@/lib/domains/workspaces/taint-settings";

/** The form sends the window in hours and the domains as one line (commas or spaces). */
const formInput = z.object({
  taint_window_hours: z.coerce.number().min(1 / 60).max(720),
  trusted_domains: z.string().max(10_000).transform((s) => s.split(/[\s,]+/).filter(Boolean)),
});

export async function setTaintSettingsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change the taint policy", formInput, form, async ({ member }, input) => {
    const given = taintSettingsInput.parse({ taint_window_seconds: Math.round(input.taint_window_hours * 3600), trusted_domains: input.trusted_domains });
    const row = await setTaintSettings(memberActor(member), given);
    revalidatePath("/settings");
    return { ok: true, message: `Agents stay tainted ${row.taintWindowSeconds / 3600} h after reading untrusted mail; ${row.trustedDomains.length} trusted domain${row.trustedDomains.length === 1 ? "" : "s"}.` };
  });
}
