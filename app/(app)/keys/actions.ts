"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createKey } from "@/lib/domains/api-keys/create-key";
import { revokeKey } from "@/lib/domains/api-keys/revoke-key";
import { apiKeyScope } from "@/lib/domains/api-keys/schemas";

const blankToNull = (v: unknown) => (typeof v === "string" && v.trim() === "" ? null : v);

// The HTML form's shape: empty fields are absent values, one checked scope is a string.
const createKeyForm = z.object({
  name: z.preprocess(blankToNull, z.string().trim().max(100).nullish()),
  agent_id: z.preprocess(blankToNull, z.string().trim().max(100).nullish()),
  scopes: z.preprocess((v) => (v === undefined ? null : Array.isArray(v) ? v : [v]), z.array(apiKeyScope).nullable()),
  mode: z.enum(["live", "test"]).default("live"),
});

export type CreatedKey = { key: string; id: string; prefix: string };

export async function createKeyAction(_prev: ActionState<CreatedKey>, form: FormData): Promise<ActionState<CreatedKey>> {
  return runMemberAction("admin", "create API keys", createKeyForm, form, async ({ member }, input) => {
    const { row, key } = await createKey(memberActor(member), input);
    revalidatePath("/keys");
    return { ok: true, data: { key, id: row.id, prefix: row.prefix } };
  });
}

export async function revokeKeyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "revoke API keys", z.object({ key_id: z.string().min(1).max(100) }), form, async ({ member }, input) => {
    const row = await revokeKey(memberActor(member), input.key_id);
    revalidatePath("/keys");
    return { ok: true, message: `Key ${row.prefix}… revoked.` };
  });
}
