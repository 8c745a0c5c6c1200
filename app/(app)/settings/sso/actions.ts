"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { deleteSsoConnection, saveSamlConnection, saveSsoConnection } from "@/lib/domains/sso/connections";
import { addSsoDomain, removeSsoDomain, setSsoRequired, verifySsoDomain } from "@/lib/domains/sso/domains";

const connectionForm = z.object({
  issuer: z.string().trim().max(500),
  client_id: z.string().trim().max(500),
  client_secret: z.string().max(2000).optional(),
  just_in_time: z.preprocess((v) => v === "on", z.boolean()),
});
const domainIdForm = z.object({ domain_id: z.string().min(1).max(100) });
const samlConnectionForm = z.object({
  metadata_url: z.string().trim().max(2000).optional(),
  metadata_xml: z.string().max(200_000).optional(),
  just_in_time: z.preprocess((v) => v === "on", z.boolean()),
  allow_idp_initiated: z.preprocess((v) => v === "on", z.boolean()),
});

export async function saveSsoConnectionAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage SSO", connectionForm, form, async ({ member }, input) => {
    const row = await saveSsoConnection(memberActor(member), input);
    revalidatePath("/settings/sso");
    return { ok: true, message: `Connection saved: ${row.issuer} answered its discovery document.` };
  });
}

export async function saveSamlConnectionAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage SSO", samlConnectionForm, form, async ({ member }, input) => {
    const row = await saveSamlConnection(memberActor(member), input);
    revalidatePath("/settings/sso");
    return { ok: true, message: `SAML connection saved: ${row.issuer}, ${row.samlCertificates?.length ?? 0} signing certificate(s).` };
  });
}

export async function deleteSsoConnectionAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage SSO", z.object({}), form, async ({ member }) => {
    await deleteSsoConnection(memberActor(member));
    revalidatePath("/settings/sso");
    return { ok: true, message: "SSO connection removed: its domains sign in with passkeys again." };
  });
}

export async function addSsoDomainAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage SSO", z.object({ name: z.string().max(300) }), form, async ({ member }, input) => {
    const row = await addSsoDomain(memberActor(member), input);
    revalidatePath("/settings/sso");
    return { ok: true, message: `${row.name} added: publish its TXT record, then verify it.` };
  });
}

export async function verifySsoDomainAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage SSO", domainIdForm, form, async ({ member }, input) => {
    const row = await verifySsoDomain(memberActor(member), input.domain_id);
    revalidatePath("/settings/sso");
    return { ok: true, message: `${row.name} is verified: its people can sign in with SSO.` };
  });
}

export async function setSsoRequiredAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = domainIdForm.extend({ required: z.enum(["true", "false"]) });
  return runMemberAction("admin", "manage SSO", schema, form, async ({ member }, input) => {
    const row = await setSsoRequired(memberActor(member), input.domain_id, input.required === "true");
    revalidatePath("/settings/sso");
    return { ok: true, message: row.requireSso ? `${row.name} now requires SSO: its people sign in with SSO, and use passkeys only once signed in that way.` : `${row.name} no longer requires SSO.` };
  });
}

export async function removeSsoDomainAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage SSO", domainIdForm, form, async ({ member }, input) => {
    await removeSsoDomain(memberActor(member), input.domain_id);
    revalidatePath("/settings/sso");
    return { ok: true, message: "Domain removed." };
  });
}
