import { sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { approvals, type ApprovalRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { AppError } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { scheduleWork } from "../../platform/jobs/schedule";
import { matchPolicy } from "./policies";
import { queueNotifications } from "../notifications";
import { actorTaint } from "./actor-taint";
import { APPROVAL_EXPIRY_KIND } from "./approvals";
import { APPROVAL_NOTIFY_KIND } from "./notify-approvers";
import { APPROVAL_ESCALATE_KIND } from "./escalation";
import { actionHash, evidenceHash, summaryHash } from "./receipts";
import type { CreateApprovalInput } from "./schemas";
import { bindHolds } from "./bound-holds";
import { approvalFacts } from "./action-class";

const DEFAULT_EXPIRY_SECONDS = 86400;

/**
 * An agent (a workspace-wide key: that key) may have at most the workspace's
 * max_pending_approvals_per_agent approvals pending at once: 429 too_many_pending_approvals
 * beyond. Concurrent asks of one agent queue on a transaction lock, so the count they check is
 * the one they commit against; other agents do not wait.
 */
async function assertUnderPendingCap(tx: Transaction, actor: Actor & { type: "key" }): Promise<void> {
  const who = actor.agentId ?? actor.keyId;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`approvals-pending:${actor.workspaceId}`}), hashtext(${who}))`);
  const mine = actor.agentId ? sql`a.agent_id = ${actor.agentId}` : sql`a.agent_id is null and a.api_key_id = ${actor.keyId}`;
  const { rows } = await tx.execute<{ max: number; open: number }>(sql`
    select w.max_pending_approvals_per_agent as max,
      (select count(*)::int from (select 1 from approvals a where a.workspace_id = w.id and a.status = 'pending' and a.expires_at > clock_timestamp() and ${mine}
        limit w.max_pending_approvals_per_agent) x) as open
    from workspaces w where w.id = ${actor.workspaceId}`);
  const max = Number(rows[0]?.max ?? 0);
  if (rows[0] && Number(rows[0].open) < max) return;
  throw new AppError(
    "too_many_pending_approvals",
    `${actor.agentId ? `Agent ${actor.agentId}` : "This workspace-wide key"} already has ${max} approvals pending, the most this workspace allows. Wait for people to decide, or cancel one you no longer need, then ask again.`,
    { limit: max },
    { "retry-after": "60" },
  );
}

/**
 * Opens a pending approval. A matching workspace policy sets the floor of the quorum (an
 * agent may ask for more approvals, never fewer) and the expiry when the agent gives none.
 * A member opens one only for a draft they approve on its page (draft-approval.ts): it is the
 * inbox's agent's (`forAgent`), and no key's pending cap applies.
 */
export async function createApproval(
  actor: Actor & { type: "key" | "member" },
  input: CreateApprovalInput,
  /** Work that commits with the request (held mail is stored in the same transaction). */
  within?: (tx: Transaction, approval: ApprovalRow) => Promise<void>,
  forAgent: string | null = null,
): Promise<ApprovalRow> {
  const key = actor.type === "key" ? (actor as Actor & { type: "key" }) : null;
  const agentId = key ? key.agentId : forAgent;
  // Judged by what the action is (its type and amount), whatever the agent labelled it.
  const facts = approvalFacts(input);
  const policy = await matchPolicy(actor.workspaceId, facts.actionClass, agentId, facts.amount, key ? (await actorTaint(key)) !== null : false);
  const required = Math.max(input.required_approvals ?? 1, policy?.requiredApprovals ?? 1);
  const expiresIn = input.expires_in_seconds ?? policy?.expiresInSeconds ?? DEFAULT_EXPIRY_SECONDS;
  return transaction(async (tx) => {
    if (key) await assertUnderPendingCap(tx, key);
    const [row] = await tx
      .insert(approvals)
      .values({
        id: newId("approval"),
        workspaceId: actor.workspaceId,
        agentId,
        apiKeyId: key?.keyId ?? null,
        summary: input.summary,
        evidence: input.evidence,
        summarySha256: summaryHash(input.summary),
        evidenceSha256: evidenceHash(input.evidence),
        action: input.action ?? null,
        actionSha256: input.action ? actionHash(input.action) : null,
        actionClass: facts.actionClass ?? null,
        amount: facts.amount === undefined ? null : String(facts.amount),
        currency: input.currency ?? null,
        policyId: policy?.id ?? null,
        requiredApprovals: required,
        status: "pending",
        expiresAt: sql`clock_timestamp() + make_interval(secs => ${expiresIn})`,
        traceId: actor.traceId ?? null,
        holdIds: input.hold_ids ?? [],
        onApprove: input.on_approve ?? "commit",
      })
      .returning();
    await within?.(tx, row!);
    await emitEvent(tx, actor, {
      type: "approval.requested",
      agentId,
      data: { approval_id: row!.id, summary: row!.summary, action_class: row!.actionClass, required_approvals: required, expires_at: row!.expiresAt.toISOString(), hold_ids: row!.holdIds, on_approve: row!.onApprove },
    });
    await appendAudit(tx, [
      {
        actor,
        action: "approval.requested",
        resource: { type: "approval", id: row!.id },
        summary: { summary_sha256: row!.summarySha256, evidence_sha256: row!.evidenceSha256, action_sha256: row!.actionSha256, action_class: row!.actionClass, amount: facts.amount ?? null, required_approvals: required, policy_id: policy?.id ?? null, hold_ids: row!.holdIds, on_approve: row!.onApprove },
      },
    ]);
    await queueNotifications(tx, { workspaceId: row!.workspaceId, type: "approval.requested", subject: row!.id });
    // Last, so the calendars it locks stay locked only until the commit.
    if (key) await bindHolds(tx, key, row!.id, row!.holdIds);
    const item = { id: row!.id, workspaceId: row!.workspaceId };
    scheduleWork(APPROVAL_NOTIFY_KIND, [{ ...item, dueAt: row!.createdAt }]);
    scheduleWork(APPROVAL_EXPIRY_KIND, [{ ...item, dueAt: row!.expiresAt }]);
    // Whether and when to escalate is the workspace's setting: the run reads it and sleeps until due.
    scheduleWork(APPROVAL_ESCALATE_KIND, [{ ...item, dueAt: row!.createdAt }]);
    return row!;
  });
}
