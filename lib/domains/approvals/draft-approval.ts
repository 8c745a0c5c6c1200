import { and, eq, sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { approvals, type DraftRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import { composeStoredDraft, getDraft, prepareDraftEdit, writeDraftEdit, type DraftEdit } from "../mail";
import { holdStoredDraftForMember, memberDraftPolicy } from "./mail-gate";
import { startDecision, type DecisionOptions } from "./decide-with-passkey";
import { resolveApproval } from "./resolve-approval";
import { announceResolved } from "./waiters";

/**
 * Edit and approve in one place (issue #31): a person reviews a draft on its page, edits it, and
 * approves and sends it with their passkey there. The approval binds the bytes composed from the
 * version they read (the receipt's `action.rfc822_sha256`); an edit after the approval was
 * requested cancels that approval (its held message is discarded, never sent) and makes the
 * draft editable again, so an approval never releases bytes other than those it names. What is
 * held, cancelled and sent is decided here from the stored draft, never from what the page sends.
 */

type MemberActor = Actor & { type: "member" };

const stale = (row: DraftRow, version: number) =>
  new AppError("conflict", `Draft ${row.id} changed: you have version ${version}, it is at version ${row.version}. Reload it, then retry.`, { reason: "stale_version", version: row.version });

/**
 * Step one of "Approve and send": the draft at `version`, held under an approval (opened now
 * for a draft, or the one it already waits for), and a passkey challenge to approve exactly that
 * approval (startDecision). Step two is the approvals page's own: decideWithPasskey.
 */
export async function prepareDraftApproval(actor: MemberActor, draftId: string, version: number): Promise<{ approvalId: string; options: DecisionOptions }> {
  const row = await getDraft(actor, draftId);
  if (row.version !== version) throw stale(row, version);
  const approvalId = row.status === "sent" && row.approvalId ? row.approvalId : (await holdStoredDraftForMember(actor, row)).id;
  return { approvalId, options: await startDecision(actor, approvalId, "approve") };
}

/**
 * A person's edit from the draft's page. A draft waiting for its approval (held by the agent's
 * send or an earlier "Approve and send") is edited by cancelling that approval in the same
 * transaction: its held bytes are discarded, and the draft is a draft again with the edit.
 * An approval already decided (or expired) cannot be undone: 409.
 */
export async function editDraftAsPerson(actor: MemberActor, draftId: string, version: number, input: DraftEdit): Promise<DraftRow> {
  const edit = await prepareDraftEdit(actor, draftId, input);
  const heldBy = edit.current.status === "sent" ? edit.current.approvalId : null;
  if (!heldBy) return transaction((tx) => writeDraftEdit(tx, actor, edit, version, null));
  if (edit.current.version !== version) throw stale(edit.current, version);
  const row = await transaction(async (tx) => {
    const [locked] = await tx
      .select({ approval: approvals, live: sql<boolean>`(${approvals.status} = 'pending' and ${approvals.expiresAt} > clock_timestamp())` })
      .from(approvals)
      .where(and(eq(approvals.id, heldBy), eq(approvals.workspaceId, actor.workspaceId)))
      .for("update");
    if (!locked?.live) {
      const status = !locked ? "gone" : locked.approval.status === "pending" ? "expired" : locked.approval.status;
      throw new AppError("conflict", `Draft ${draftId} was sent for approval, and that approval is ${status}: it can no longer be edited.`, { reason: "approval_decided", approval_status: status });
    }
    await resolveApproval(tx, actor, locked.approval, "cancelled");
    // Checks the version again under the lock: a change since rolls the cancellation back.
    return writeDraftEdit(tx, actor, edit, version, heldBy);
  });
  announceResolved(heldBy);
  return row;
}

/** What the draft's page offers: whether sending it needs a person's approval (a mail rule matches), from the stored draft. */
export async function draftNeedsApproval(actor: MemberActor, row: DraftRow): Promise<{ policy: string; requiredApprovals: number } | null> {
  if (row.status !== "draft") return null;
  const composed = await composeStoredDraft(actor, row).catch(() => null);
  if (!composed) return null;
  const policy = await memberDraftPolicy(actor, composed.inbox, composed.draft, composed.parent);
  return policy ? { policy: policy.name, requiredApprovals: policy.requiredApprovals } : null;
}
