import { and, eq, gt, inArray, isNotNull, isNull, notInArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Transaction } from "../../../db/client";
import { transaction } from "../../../db/transaction";
import { agents, approvalDecisions, approvals, members, workspaces, type ApprovalRow, type MemberRow } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { queueMail } from "../mail";
import { drainDue } from "../../platform/jobs/due";
import { queueNotifications } from "../notifications";
import { publicOrigin } from "../../platform/config/public-url";

export const ESCALATION_ROLES = ["owner", "admin", "approver"] as const;

/** The workspace setting: after `after_minutes` still pending, mail the members with `role`. Empty minutes: off. */
export const escalationInput = z
  .object({
    after_minutes: z.union([z.literal(""), z.coerce.number().min(1, "at least 1 minute").max(43_200, "at most 30 days (43200 minutes)")]).optional(),
    role: z.enum(ESCALATION_ROLES, { message: "choose owner, admin or approver" }).optional(),
  })
  .transform((v, ctx) => {
    if (v.after_minutes === "" || v.after_minutes === undefined) return null;
    if (!v.role) {
      ctx.addIssue({ code: "custom", path: ["role"], message: "choose who is told: owner, admin or approver" });
      return z.NEVER;
    }
    return { seconds: Math.round(v.after_minutes * 60), role: v.role };
  });

/** Admins and owners set (or turn off) escalation; audited. */
export async function setEscalation(by: MemberRow, input: z.input<typeof escalationInput>) {
  const setting = escalationInput.parse(input);
  assertRole(by.role, "admin", "change approval escalation");
  return transaction(async (tx) => {
    const [row] = await tx
      .update(workspaces)
      .set({ approvalEscalationSeconds: setting?.seconds ?? null, approvalEscalationRole: setting?.role ?? null })
      .where(eq(workspaces.id, by.workspaceId))
      .returning();
    await appendAudit(tx, [
      { actor: memberActor(by), action: "workspace.escalation_set", resource: { type: "workspace", id: by.workspaceId }, summary: setting ? { after_seconds: setting.seconds, role: setting.role } : { off: true } },
    ]);
    return row!;
  });
}

/** The work kind that escalates one long-pending approval (lib/composition/job-kinds.ts): a timer at created_at + the delay. */
export const APPROVAL_ESCALATE_KIND = "approval.escalate";

/** Pending approvals of workspaces with escalation, due when their delay has passed, for the work registry. */
export const escalationSource = () => sql`
  select a.id, a.workspace_id, null::text as key, a.created_at + make_interval(secs => w.approval_escalation_seconds) as due_at
  from approvals a join workspaces w on w.id = a.workspace_id
  where a.status = 'pending' and a.escalated_at is null and w.approval_escalation_seconds is not null
    and a.expires_at > a.created_at + make_interval(secs => w.approval_escalation_seconds)`;

/**
 * Escalation (SPEC §5), one approval per run: if it is still pending past its workspace's
 * escalation delay it is marked escalated (once: the claim is an UPDATE ... WHERE escalated_at
 * IS NULL, so concurrent runs cannot both take it), audited and mailed (queued) in the same
 * transaction to the members with the escalation role who have not decided it yet, with a link
 * to the queue only. Not due yet: returns when it will be (the delay is read now, so a changed
 * setting is honoured). Returns `{ escalated }` and, when it must look again, `retryAt`.
 */
export async function escalateApproval(approvalId: string): Promise<{ escalated: boolean; retryAt?: Date }> {
  return transaction(async (tx) => {
    const [candidate] = await tx
      .select({
        role: workspaces.approvalEscalationRole,
        seconds: workspaces.approvalEscalationSeconds,
        dueAt: sql<string>`${approvals.createdAt} + make_interval(secs => ${workspaces.approvalEscalationSeconds})`,
        due: sql<boolean>`${approvals.createdAt} + make_interval(secs => ${workspaces.approvalEscalationSeconds}) <= clock_timestamp()`,
      })
      .from(approvals)
      .innerJoin(workspaces, eq(workspaces.id, approvals.workspaceId))
      .where(
        and(
          eq(approvals.id, approvalId),
          eq(approvals.status, "pending"),
          isNull(approvals.escalatedAt),
          gt(approvals.expiresAt, sql`clock_timestamp()`),
          isNotNull(workspaces.approvalEscalationSeconds),
        ),
      );
    if (!candidate) return { escalated: false };
    if (!candidate.due) return { escalated: false, retryAt: new Date(candidate.dueAt) };
    const [row] = await tx
      .update(approvals)
      .set({ escalatedAt: sql`clock_timestamp()` })
      .where(and(eq(approvals.id, approvalId), eq(approvals.status, "pending"), isNull(approvals.escalatedAt)))
      .returning();
    if (!row) return { escalated: false };
    await appendAudit(tx, [
      {
        actor: { type: "system", workspaceId: row.workspaceId, job: "approval-escalation", traceId: row.traceId ?? undefined },
        action: "approval.escalated",
        resource: { type: "approval", id: row.id },
        agentId: row.agentId,
        summary: { role: candidate.role, after_seconds: candidate.seconds },
      },
    ]);
    await mailEscalation(tx, row, candidate.role!, candidate.seconds!);
    await queueNotifications(tx, { workspaceId: row.workspaceId, type: "approval.escalated", subject: row.id });
    return { escalated: true };
  });
}

/**
 * Escalates every approval due for it now (tests and the CLI; in the server each approval is its
 * own timer); `workspaceId` keeps to one workspace's (tests share one database).
 */
export const escalateApprovals = (o: { workspaceId?: string } = {}): Promise<number> =>
  drainDue(
    o.workspaceId ? () => sql`select * from (${escalationSource()}) as s where s.workspace_id = ${o.workspaceId}` : escalationSource,
    async (id) => (await escalateApproval(id)).escalated,
  );

async function mailEscalation(q: Transaction, a: ApprovalRow, role: (typeof ESCALATION_ROLES)[number], seconds: number): Promise<void> {
  const decided = q.select({ id: approvalDecisions.memberId }).from(approvalDecisions).where(eq(approvalDecisions.approvalId, a.id));
  const people = await q
    .select({ email: members.email })
    .from(members)
    .where(and(eq(members.workspaceId, a.workspaceId), inArray(members.role, [role]), notInArray(members.id, decided)));
  if (!people.length) return;
  const [agent] = a.agentId ? await q.select({ name: agents.name }).from(agents).where(eq(agents.id, a.agentId)) : [];
  const origin = publicOrigin();
  const waited = seconds >= 3600 ? `${Math.round((seconds / 3600) * 10) / 10} h` : `${Math.round(seconds / 60)} min`;
  await queueMail(q, {
    workspaceId: a.workspaceId,
    to: [...new Set(people.map((p) => p.email))],
    kind: "approval_escalated",
    subject: `Still waiting for approval: ${a.summary}`,
    text: [
      `${agent?.name ?? "An agent"} has waited more than ${waited} for a decision:`,
      "",
      `  ${a.summary}`,
      `  Expires: ${a.expiresAt.toISOString()}`,
      "",
      `This was escalated to the workspace's ${role}s. Review the evidence and decide, signed in, in the approval queue: ${origin}/approvals`,
      "This mail cannot approve or deny anything; only a signed-in member can.",
    ].join("\n"),
  });
}
