import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { z } from "zod";
import { queryable } from "../../../db/transaction";
import { approvalPolicies, type ApprovalPolicyRow, type ApprovalRow, type DraftRow, type InboxRow, type MessageRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import type { Transaction } from "../../../db/client";
import { AppError } from "../../platform/errors";
import { attachmentNotes, composeForSending, composeStoredDraft, draftForForward, draftForReply, draftForSend, getDraft, markDraftSent, sendDraft, storeOutbound } from "../mail";
import type { AttachmentNote, Draft } from "../mail";
import type { forwardInput, replyInput, sendMessageInput } from "../mail";
import { createApproval } from "./create-approval";
import { traceTaint } from "./trace-taint";
import { actorTaint } from "./actor-taint";
import { untrustedRecipient } from "./trusted-recipients";
import { taintOfMessage } from "../taint";
import type { Taint } from "../taint";

export const MAIL_ACTION_CLASS = "email.send";

type KeyActor = Actor & { type: "key" };
type MemberActor = Actor & { type: "member" };
/** `notes`: files whose declared type was replaced by the sniffed one, for the answer. */
export type GatedSend = { message: MessageRow; approval: ApprovalRow | null; notes: AttachmentNote[] };

/** `POST /v1/inboxes/{id}/messages`: sent now, or held for a person when asked or when a policy says so. */
export async function sendOrHold(actor: KeyActor, inboxId: string, input: z.output<typeof sendMessageInput>): Promise<GatedSend> {
  const { require_approval, ...rest } = input;
  const { inbox, draft } = await draftForSend(actor, inboxId, rest);
  const gate = await mailGate(actor, inbox, draft, require_approval);
  return sendOrHoldDraft(actor, inbox, draft, gate);
}

async function sendOrHoldDraft(actor: KeyActor, inbox: InboxRow, draft: Draft, gate: Gate | null): Promise<GatedSend> {
  const notes = attachmentNotes(draft.attachments);
  if (!gate) return { message: await sendDraft(actor, inbox, draft), approval: null, notes };
  return { ...(await holdForApproval(actor, inbox, draft, gate)), notes };
}

/** `POST /v1/messages/{id}/reply`: the same gate for replies. */
export async function replyOrHold(actor: KeyActor, parentId: string, input: z.output<typeof replyInput>): Promise<GatedSend> {
  const { require_approval, ...rest } = input;
  const { inbox, draft, parent } = await draftForReply(actor, parentId, rest);
  const gate = await mailGate(actor, inbox, draft, require_approval, parent);
  return sendOrHoldDraft(actor, inbox, draft, gate);
}

/** `POST /v1/messages/{id}/forward`: the same gate; the forwarded message's taint counts as a reply's parent's does. */
export async function forwardOrHold(actor: KeyActor, originalId: string, input: z.output<typeof forwardInput>): Promise<GatedSend> {
  const { require_approval, ...rest } = input;
  const { inbox, draft, original } = await draftForForward(actor, originalId, rest);
  const gate = await mailGate(actor, inbox, draft, require_approval, original);
  return sendOrHoldDraft(actor, inbox, draft, gate);
}

/**
 * `POST /v1/drafts/{id}/send` (and a person's send from the web app): the stored draft, at the
 * version read (`version`, when given, must be it), composed and put through the same gate as
 * any send. The draft becomes `sent` in the transaction that stores its message (or holds it for
 * approval): of racing sends one stores a message, the others are 409 and store nothing.
 *
 * A key's send is gated as a send is (policy, taint, 202 with the approval). A person sending
 * from the web app is the person a policy asks for: the same rules are matched, and the send goes
 * out at once when one person suffices; a rule asking for more approvals is refused (the agent
 * sends it, and it is held for the quorum).
 */
export async function sendStoredDraft(actor: KeyActor | MemberActor, draftId: string, version?: number, requireApproval = false): Promise<GatedSend & { draftId: string }> {
  const row = await getDraft(actor, draftId);
  if (version !== undefined && row.version !== version && row.status === "draft") {
    throw new AppError("conflict", `Draft ${draftId} changed: you have version ${version}, it is at version ${row.version}. Read it again, then retry.`, { reason: "stale_version", version: row.version });
  }
  const { inbox, draft, parent } = await composeStoredDraft(actor, row);
  const notes = attachmentNotes(draft.attachments);
  const mark = (approvalId: string | null) => async (tx: Transaction, messageId: string) => {
    await markDraftSent(tx, actor, row, messageId, approvalId);
  };
  if (actor.type === "member") {
    // Mail a policy puts before a person is approved with a passkey (draft-approval.ts), which
    // records the approval and signs its receipt over the bytes; a plain send would record neither.
    const policy = await memberDraftPolicy(actor, inbox, draft, parent);
    if (policy) {
      throw new AppError("approval_required", `Workspace policy “${policy.name}” asks ${policy.requiredApprovals === 1 ? "a person" : `${policy.requiredApprovals} people`} to approve this mail: approve and send it with your passkey (the draft's page: Approve and send), so the approval and its receipt bind what leaves.`, { reason: "approve_with_passkey", policy_id: policy.id, required_approvals: policy.requiredApprovals });
    }
    return { message: await sendDraft(actor, inbox, draft, mark(null)), approval: null, notes, draftId };
  }
  const gate = await mailGate(actor, inbox, draft, requireApproval, parent ?? undefined);
  if (!gate) return { message: await sendDraft(actor, inbox, draft, mark(null)), approval: null, notes, draftId };
  return { ...(await holdForApproval(actor, inbox, draft, gate, (tx, messageId, approvalId) => mark(approvalId)(tx, messageId))), notes, draftId };
}

/** The mail rule a person's send of this draft falls under (a reply takes its parent's taint), or null. */
export async function memberDraftPolicy(actor: MemberActor, inbox: InboxRow, draft: Draft, parent: MessageRow | null): Promise<ApprovalPolicyRow | null> {
  const taint = parent ? await parentTaint(parent) : null;
  return matchMailPolicy(actor.workspaceId, inbox, draft, taint !== null);
}

/**
 * A person approves a draft from its page: the draft at the version they read, composed now
 * and held (exactly these bytes, `pending_approval`) under an approval the person opens, which
 * their passkey then decides (decide-with-passkey.ts). The draft is `sent` with that approval
 * in the same transaction, so a racing send or edit of that version is refused.
 */
export async function holdStoredDraftForMember(actor: MemberActor, row: DraftRow): Promise<ApprovalRow> {
  const { inbox, draft, parent } = await composeStoredDraft(actor, row);
  const taint = parent ? await parentTaint(parent) : null;
  const policy = await matchMailPolicy(actor.workspaceId, inbox, draft, taint !== null);
  const gate: Gate = { reason: policy ? "policy" : "person", policy, taint };
  const { approval } = await holdForApproval(actor, inbox, draft, gate, async (tx, messageId, approvalId) => {
    await markDraftSent(tx, actor, row, messageId, approvalId);
  });
  return approval!;
}

type Gate = { reason: "requested" | "policy" | "person"; policy: ApprovalPolicyRow | null; taint: Taint | null };

/**
 * Whether this message waits for a person: the agent asked, or a workspace mail rule matches.
 * Taint rules apply while the agent is tainted (lib/domains/approvals/actor-taint.ts) and to a reply to
 * untrusted mail (or to a message in a trace that starts at it), whoever sends it.
 */
async function mailGate(actor: KeyActor, inbox: InboxRow, draft: Draft, requested: boolean, parent?: MessageRow): Promise<Gate | null> {
  const taint = (await actorTaint(actor)) ?? (parent ? await parentTaint(parent) : null);
  const policy = await matchMailPolicy(actor.workspaceId, inbox, draft, taint !== null);
  if (policy) return { reason: "policy", policy, taint };
  return requested ? { reason: "requested", policy: null, taint } : null;
}

/** A reply takes its parent's taint: the parent is untrusted mail, or its trace starts at such mail. */
async function parentTaint(parent: MessageRow): Promise<Taint | null> {
  const own = taintOfMessage(parent) ?? (await traceTaint(parent.workspaceId, parent.traceId));
  return own ? { ...own, source: "reply_parent" } : null;
}

/**
 * The mail rules (action class `email.send`) that apply: for this agent or any, this inbox or
 * any, a recipient at the rule's domain, a recipient the workspace does not trust, and a tainted
 * sender, each only when the rule names it. The stricter quorum wins.
 */
async function matchMailPolicy(workspaceId: string, inbox: InboxRow, draft: Draft, tainted: boolean): Promise<ApprovalPolicyRow | null> {
  const q = await queryable();
  // Blind copies are recipients too: a rule on a domain or on new recipients sees them.
  const recipients = [...draft.to, ...draft.cc, ...(draft.bcc ?? [])].map((a) => a.toLowerCase());
  const domains = [...new Set(recipients.map((a) => a.split("@")[1] ?? ""))];
  const candidates = await q
    .select()
    .from(approvalPolicies)
    .where(
      and(
        eq(approvalPolicies.workspaceId, workspaceId),
        eq(approvalPolicies.actionClass, MAIL_ACTION_CLASS),
        or(isNull(approvalPolicies.agentId), eq(approvalPolicies.agentId, inbox.agentId)),
        or(isNull(approvalPolicies.inboxId), eq(approvalPolicies.inboxId, inbox.id)),
        or(isNull(approvalPolicies.recipientDomain), sql`${approvalPolicies.recipientDomain} in (${sql.join(domains.map((d) => sql`${d}`), sql`, `)})`),
        tainted ? undefined : eq(approvalPolicies.untrustedTrace, false),
      ),
    )
    .orderBy(desc(approvalPolicies.requiredApprovals), desc(approvalPolicies.id));
  if (!candidates.length) return null;
  const plain = candidates.find((p) => !p.newRecipients);
  if (plain) return plain;
  return (await untrustedRecipient(workspaceId, recipients)) ? candidates[0]! : null;
}

/**
 * Composes the message now (its Message-ID and Date fixed), stores exactly those bytes as
 * `pending_approval` and opens the approval that will release them, in one transaction. The
 * approval's action names the message and the sha256 of its bytes, so the receipt binds them.
 */
async function holdForApproval(
  actor: KeyActor | MemberActor,
  inbox: InboxRow,
  draft: Draft,
  gate: Gate,
  before?: (tx: Transaction, messageId: string, approvalId: string) => Promise<void>,
): Promise<Omit<GatedSend, "notes">> {
  const composed = await composeForSending(inbox, draft);
  const recipients = [...draft.to, ...draft.cc, ...(draft.bcc ?? [])];
  const action = {
    type: MAIL_ACTION_CLASS,
    inbox_id: inbox.id,
    message: composed.id,
    message_id: composed.parsed.messageId,
    from: inbox.address,
    to: draft.to,
    cc: draft.cc,
    // Not in the bytes (Bcc never is): named here, so the approver sees and the receipt binds who else receives them.
    ...(draft.bcc?.length ? { bcc: draft.bcc } : {}),
    subject: draft.subject,
    rfc822_sha256: composed.parsed.sha256,
    size_bytes: composed.raw.length,
    // The files are in those bytes; named here by hash so the receipt shows exactly which leave.
    ...(composed.parsed.attachments.length ? { attachments: composed.parsed.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, size: a.size, sha256: a.sha256 })) } : {}),
    ...(draft.forwardOf ? { forwarded_from: draft.forwardOf.id } : {}),
  };
  const evidence = {
    why: gate.reason === "requested" ? "the agent asked for approval before sending" : gate.reason === "person" ? "a person approves it from the draft's page" : `workspace policy “${gate.policy!.name}”`,
    ...(gate.taint ? { untrusted_trace: gate.taint } : {}),
    text: draft.text.slice(0, 4000),
  };
  let message: MessageRow | undefined;
  const approval = await createApproval(
    actor,
    {
      summary: oneLine(`Send “${draft.subject}” to ${recipients.slice(0, 3).join(", ")}${recipients.length > 3 ? ` and ${recipients.length - 3} more` : ""}`),
      evidence,
      action,
      action_class: MAIL_ACTION_CLASS,
      required_approvals: gate.policy?.requiredApprovals,
      expires_in_seconds: gate.policy?.expiresInSeconds,
    },
    async (tx, row) => {
      await before?.(tx, composed.id, row.id);
      message = await storeOutbound(tx, actor, inbox, draft, composed, "pending_approval", row.id);
    },
    inbox.agentId,
  );
  return { message: message!, approval };
}

const oneLine = (s: string) => (s.length > 200 ? `${s.slice(0, 199)}…` : s).replace(/[\r\n]+/g, " ");
