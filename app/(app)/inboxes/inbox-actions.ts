"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { createInbox, getInbox, updateInbox } from "@/lib/domains/mail/inboxes";
import { deleteInbox } from "@/lib/domains/mail/delete-inbox";
import { changeLabelsInput, createInboxInput, updateInboxInput } from "@/lib/domains/mail/schemas";
import { labelThread } from "@/lib/domains/mail/read-mail";

const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
// A textarea: one rule a line (commas work too); blank lines ignored.
const rules = z.preprocess((v) => (typeof v === "string" ? v.split(/[\n,]/).map((r) => r.trim()).filter(Boolean) : v), z.array(z.string()).max(500));

const createForm = z.object({
  agent_id: z.string().min(1).max(100),
  username: z.preprocess(blankToUndefined, z.string().optional()),
  domain: z.preprocess(blankToUndefined, z.string().max(253).optional()),
  display_name: z.preprocess(blankToUndefined, z.string().optional()),
  allow_senders: rules.optional(),
  block_senders: rules.optional(),
});

export async function createInboxAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "create inboxes", createForm, form, async ({ member }, input) => {
    const row = await createInbox(memberActor(member), createInboxInput.parse(input));
    revalidatePath("/inboxes");
    return { ok: true, message: `Inbox ${row.address} created.` };
  });
}

const updateForm = z.object({
  inbox_id: z.string().min(1).max(100),
  display_name: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), z.string().nullable().optional()),
  allow_senders: rules,
  block_senders: rules,
});

export async function updateInboxRulesAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change inboxes", updateForm, form, async ({ member }, { inbox_id, ...input }) => {
    await updateInbox(memberActor(member), inbox_id, updateInboxInput.parse(input));
    revalidatePath(`/inboxes/${inbox_id}`);
    return { ok: true, message: "Inbox settings saved." };
  });
}

export async function deleteInboxAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = z.object({ inbox_id: z.string().min(1).max(100), confirm_address: z.string().trim().toLowerCase().max(320) });
  return runMemberAction("admin", "delete inboxes", schema, form, async ({ member }, { inbox_id, confirm_address }) => {
    const actor = memberActor(member);
    const inbox = await getInbox(actor, inbox_id);
    if (confirm_address !== inbox.address) {
      return { ok: false, error: "Type the inbox's address to confirm.", fieldErrors: { confirm_address: `type ${inbox.address}` } };
    }
    await deleteInbox(actor, inbox_id);
    revalidatePath("/inboxes");
    redirect("/inboxes");
  });
}

// Labels typed in a field: separated by commas or spaces; blank: none.
const labelList = z.preprocess((v) => (typeof v === "string" ? v.split(/[\s,]+/).filter(Boolean) : []), z.array(z.string()).max(20));
const labelForm = z.object({ inbox_id: z.string().min(1).max(100), thread_id: z.string().min(1).max(100), add: labelList, remove: labelList });

/** Approvers and above add and remove a thread's labels (the same rules as the API). */
export async function labelThreadAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "label threads", labelForm, form, async ({ member }, { inbox_id, thread_id, add, remove }) => {
    const { labels } = await labelThread(memberActor(member), thread_id, changeLabelsInput.parse({ add, remove }));
    revalidatePath(`/inboxes/${inbox_id}/threads/${thread_id}`);
    revalidatePath(`/inboxes/${inbox_id}`);
    return { ok: true, message: labels.length ? `Labels: ${labels.join(", ")}.` : "No labels." };
  });
}
