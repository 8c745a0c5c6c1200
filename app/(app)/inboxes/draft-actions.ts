"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { returnDraft } from "@/lib/domains/mail/drafts";
import { returnDraftInput, updateDraftInput } from "@/lib/domains/mail/draft-schemas";
import { sendStoredDraft } from "@/lib/domains/approvals/mail-gate";
import { editDraftAsPerson, prepareDraftApproval } from "@/lib/domains/approvals/draft-approval";
import type { DecisionOptions } from "@/lib/domains/approvals/decide-with-passkey";

// Addresses typed in a field: separated by commas, spaces or lines; blank: none.
const addresses = z.preprocess((v) => (typeof v === "string" ? v.split(/[\s,;]+/).filter(Boolean) : []), z.array(z.string().max(320)).max(50));
const ids = { inbox_id: z.string().min(1).max(100), draft_id: z.string().min(1).max(100), version: z.coerce.number().int().min(1).max(2_147_483_647) };

const editForm = z.object({
  ...ids,
  to: addresses,
  cc: addresses,
  bcc: addresses,
  subject: z.string().max(900),
  text: z.string().max(500_000),
  html: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), z.string().max(2_000_000).nullable()),
});

const pathsOf = (inboxId: string, draftId: string) => {
  revalidatePath(`/inboxes/${inboxId}/drafts/${draftId}`);
  revalidatePath(`/inboxes/${inboxId}`);
};

/** A person edits a draft: only the version they read (the same rules as PATCH /v1/drafts/{id}); a draft waiting for its approval is edited by cancelling that approval. */
export async function updateDraftAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "edit drafts", editForm, form, async ({ member }, { inbox_id, draft_id, version, ...fields }) => {
    const { version: _v, ...changes } = updateDraftInput.parse({ ...fields, version });
    const row = await editDraftAsPerson(memberActor(member), draft_id, version, changes);
    pathsOf(inbox_id, draft_id);
    return { ok: true, message: `Saved (version ${row.version}).` };
  });
}

/** A person sends a draft as themselves: the one send path, audited as them; it becomes `sent`, once. */
export async function sendDraftAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("approver", "send drafts", z.object(ids), form, async ({ member }, { inbox_id, draft_id, version }) => {
    const { message } = await sendStoredDraft(memberActor(member), draft_id, version);
    pathsOf(inbox_id, draft_id);
    return { ok: true, message: `Sent as ${message.status === "captured" ? "captured mail (no mail provider)" : message.status}: message ${message.id}.` };
  });
}

/**
 * Step one of "Approve and send" on a draft's page: the draft at the version the page read,
 * held under its approval (opened now, or the one it waits for), and the passkey challenge to
 * approve it. Step two is the approvals page's decideApprovalAction. Bound to the draft and
 * version by the page; what is held is the stored draft, never what the browser sends.
 */
export async function prepareDraftApprovalAction(inboxId: string, draftId: string, version: number): Promise<ActionState<{ approval_id: string; options: DecisionOptions }>> {
  return runMemberAction("approver", "approve drafts", z.object(ids), { inbox_id: inboxId, draft_id: draftId, version }, async ({ member }, input) => {
    const { approvalId, options } = await prepareDraftApproval(memberActor(member), input.draft_id, input.version);
    pathsOf(input.inbox_id, input.draft_id);
    return { ok: true, data: { approval_id: approvalId, options } };
  });
}

/** A person sends a draft back to its agent with a note (status returned; the agent reads the note through the API). */
export async function returnDraftAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  // The version comes from a hidden field (a string): coerced, as in the other forms.
  const schema = z.object({ ...ids, note: returnDraftInput.shape.note });
  return runMemberAction("approver", "send drafts back", schema, form, async ({ member }, { inbox_id, draft_id, version, note }) => {
    await returnDraft(memberActor(member), draft_id, version, note);
    pathsOf(inbox_id, draft_id);
    return { ok: true, message: "Sent back to the agent with your note." };
  });
}
