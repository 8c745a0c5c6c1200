import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { agents, approvals, members, type ApprovalRow } from "../../../db/schema";
import { queueMail } from "../mail";
import { drainDue } from "../../platform/jobs/due";
import { publicOrigin } from "../../platform/config/public-url";

/** Who is told an approval waits: the owners and the approvers (SPEC §5). */
const NOTIFIED_ROLES = ["owner", "approver"] as const;

/** The work kind that mails one new approval's owners and approvers (lib/composition/job-kinds.ts). */
export const APPROVAL_NOTIFY_KIND = "approval.notify";

/** Approvals nobody was told about yet, for the work registry. */
export const unnotifiedApprovalsSource = () =>
  sql`select id, workspace_id, null::text as key, created_at as due_at from approvals where notified_at is null`;

/**
 * One unit of work: mails the owners and approvers of one new approval, once, after the
 * request committed (so a rolled-back request never mails). The claim and the queued mail
 * commit together, so a crash loses neither. The mail links to the queue, where a signed-in
 * member decides; no link in a mail can decide. Returns whether this run notified it.
 */
export async function notifyApproval(approvalId: string): Promise<boolean> {
  return transaction(async (tx) => {
    const [row] = await tx
      .update(approvals)
      .set({ notifiedAt: new Date() })
      .where(and(eq(approvals.id, approvalId), isNull(approvals.notifiedAt)))
      .returning();
    if (row) await mailAbout(tx, row);
    return Boolean(row);
  });
}

/** Notifies every approval not yet notified (tests and the CLI; in the server each is its own run). */
export const notifyApprovers = (): Promise<number> => drainDue(unnotifiedApprovalsSource, notifyApproval);

async function mailAbout(q: Transaction, a: ApprovalRow): Promise<void> {
  const people = await q
    .select({ email: members.email })
    .from(members)
    .where(and(eq(members.workspaceId, a.workspaceId), inArray(members.role, [...NOTIFIED_ROLES])));
  if (!people.length) return;
  const [agent] = a.agentId ? await q.select({ name: agents.name }).from(agents).where(eq(agents.id, a.agentId)) : [];
  const origin = publicOrigin();
  await queueMail(q, {
    workspaceId: a.workspaceId,
    to: [...new Set(people.map((p) => p.email))], // any number: queueMail sends them in chunks
    kind: "approval_requested",
    subject: `Approval needed: ${a.summary}`,
    text: [
      `${agent?.name ?? "An agent"} asks for approval:`,
      "",
      `  ${a.summary}`,
      a.actionClass ? `  Action: ${a.actionClass}${a.amount !== null ? ` (${a.amount} ${a.currency ?? ""})` : ""}` : null,
      `  Expires: ${a.expiresAt.toISOString()}`,
      "",
      `Review the evidence and decide, signed in, in the approval queue: ${origin}/approvals`,
      "This mail cannot approve or deny anything; only a signed-in member can.",
    ]
      .filter((l) => l !== null)
      .join("\n"),
  });
}
