"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createDomain, deleteDomain, verifyDomain } from "@/lib/domains/mail/mail-domains";

export async function addDomainAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "add domains", z.object({ name: z.string().min(1).max(254) }), form, async ({ member }, { name }) => {
    const row = await createDomain(memberActor(member), { name });
    revalidatePath("/domains");
    return { ok: true, message: row.status === "capture_only" ? `${row.name} added (capture mode: nothing is verified).` : `${row.name} added: create the DNS records below.` };
  });
}

const byId = z.object({ domain_id: z.string().min(1).max(100) });

export async function verifyDomainAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "verify domains", byId, form, async ({ member }, { domain_id }) => {
    const row = await verifyDomain(memberActor(member), domain_id);
    revalidatePath("/domains");
    return { ok: true, message: row.status === "verified" ? `${row.name} is verified.` : `${row.name} is ${row.status.replace("_", " ")}${row.lastError ? `: ${row.lastError}` : ""}.` };
  });
}

export async function deleteDomainAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "delete domains", byId, form, async ({ member }, { domain_id }) => {
    const row = await deleteDomain(memberActor(member), domain_id);
    revalidatePath("/domains");
    return { ok: true, message: `${row.name} removed.` };
  });
}
