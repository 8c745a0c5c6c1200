import { and, eq, isNotNull } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { approvalPolicies, members, type ApprovalPolicyRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import { appendAudit } from "../../platform/audit/append-audit";
import { issueChallenge, spendConfirmation, type DecisionOptions } from "./decide-with-passkey";

/**
 * The built-in rules (issue #48, SPEC §13): every workspace starts with them, so it is protected
 * with no configuration. Each applies only while the agent acting is tainted (it read mail from
 * outside the workspace, or mail flagged for another reason, within the taint window); then a
 * person decides before:
 * - `mail`: mail to a recipient the workspace does not trust (lib/domains/approvals/trusted-recipients.ts);
 * - `webhooks`: any webhook endpoint change (create, URL, event types, agent filter, re-enable);
 * - `leases`: any lease;
 * - `holds`: a hold above a stated priority (50 unless an owner changed it: the default priority
 *   never waits, a hold that can preempt does).
 * Only an owner, with a passkey, turns one off, back on, or changes the holds' priority; each change
 * is audited (`approval_policy.builtin_changed`) with the passkey that confirmed it.
 */
export const BUILTIN_KEYS = ["mail", "webhooks", "leases", "holds"] as const;
export type BuiltinKey = (typeof BUILTIN_KEYS)[number];

/** Holds above this priority wait for a person by default. */
export const DEFAULT_HOLDS_ABOVE = 50;

export const WEBHOOK_CHANGE_CLASS = "webhook_endpoint.change";

/** What each built-in rule protects, in one line, for the web app and docs. */
export const BUILTIN_PURPOSE: Record<BuiltinKey, string> = {
  mail: "Mail from a tainted agent to anyone the workspace does not trust (not a member, an inbox here, a trusted domain, or someone it has sent to) waits for a person.",
  webhooks: "A tainted agent's webhook endpoint change (create, URL, event types, agent filter, re-enable) waits for a person.",
  leases: "A tainted agent's lease waits for a person.",
  holds: "A tainted agent's hold above the stated priority waits for a person.",
};

/** The row a built-in rule is, for a workspace (`holdsAbove`: the holds rule's stated priority). */
export function builtinPolicy(key: BuiltinKey, workspaceId: string, holdsAbove = DEFAULT_HOLDS_ABOVE): typeof approvalPolicies.$inferInsert {
  const base = { id: newId("approvalPolicy"), workspaceId, builtin: key, untrustedTrace: true, requiredApprovals: 1, expiresInSeconds: 86400 };
  switch (key) {
    case "mail":
      return { ...base, name: "Built-in: mail to someone untrusted, after untrusted mail", actionClass: "email.send", newRecipients: true };
    case "webhooks":
      return { ...base, name: "Built-in: webhook endpoint changes, after untrusted mail", actionClass: WEBHOOK_CHANGE_CLASS };
    case "leases":
      return { ...base, name: "Built-in: leases, after untrusted mail", actionClass: "lease.acquire" };
    case "holds":
      return { ...base, name: `Built-in: holds above priority ${holdsAbove}, after untrusted mail`, actionClass: "hold.place", minPriority: holdsAbove + 1 };
  }
}

/** Gives a new workspace its built-in rules, in the transaction that creates it. */
export async function seedBuiltinPolicies(tx: Transaction, workspaceId: string): Promise<void> {
  await tx.insert(approvalPolicies).values(BUILTIN_KEYS.map((k) => builtinPolicy(k, workspaceId)));
}

export type BuiltinState = { key: BuiltinKey; on: boolean; purpose: string; policy: ApprovalPolicyRow | null; holds_above: number | null };

/** Each built-in rule of a workspace: on (with its row) or off. */
export async function builtinStates(workspaceId: string): Promise<BuiltinState[]> {
  const q = await queryable();
  const rows = await q.select().from(approvalPolicies).where(and(eq(approvalPolicies.workspaceId, workspaceId), isNotNull(approvalPolicies.builtin)));
  return BUILTIN_KEYS.map((key) => {
    const policy = rows.find((r) => r.builtin === key) ?? null;
    return { key, on: policy !== null, purpose: BUILTIN_PURPOSE[key], policy, holds_above: key === "holds" && policy?.minPriority != null ? policy.minPriority - 1 : null };
  });
}

/** A change an owner asks for: turn a rule on or off; for holds, the priority above which they wait. */
export const builtinChangeInput = z
  .object({
    key: z.enum(BUILTIN_KEYS),
    on: z.boolean(),
    holds_above: z.number().int().min(0).max(99).optional(),
  })
  .refine((c) => c.holds_above === undefined || (c.key === "holds" && c.on), { message: "holds_above applies only when turning the holds rule on", path: ["holds_above"] });
export type BuiltinChange = z.output<typeof builtinChangeInput>;

/** What a passkey confirms: exactly this change (a challenge for one change does not confirm another). */
const confirmationTarget = (c: BuiltinChange) => `builtin_policy:${c.key}:${c.on ? "on" : "off"}${c.holds_above === undefined ? "" : `:${c.holds_above}`}`;

type MemberActor = Actor & { type: "member" };

async function assertOwner(tx: Transaction, actor: MemberActor): Promise<string | null> {
  const [member] = await tx.select({ role: members.role, userId: members.userId }).from(members).where(and(eq(members.id, actor.memberId), eq(members.workspaceId, actor.workspaceId)));
  if (member?.role !== "owner") throw new AppError("forbidden", "Only an owner can change the built-in protection, with a passkey.");
  return member.userId;
}

/** Step one: a passkey challenge for exactly this change, for an owner's browser prompt. */
export async function startBuiltinChange(actor: MemberActor, given: z.input<typeof builtinChangeInput>): Promise<DecisionOptions> {
  const change = builtinChangeInput.parse(given);
  return transaction(async (tx) => issueChallenge(tx, actor, await assertOwner(tx, actor), confirmationTarget(change), "approve", "Changing the built-in protection"));
}

/**
 * Step two: the change, made only with a fresh passkey confirmation of exactly it by an owner.
 * Off removes the rule; on restores it (with the holds' stated priority); both audited with the
 * passkey. Changing nothing (already so) is not an error and audits nothing.
 */
export async function changeBuiltinPolicy(actor: MemberActor, given: z.input<typeof builtinChangeInput>, rawAssertion: unknown): Promise<BuiltinState> {
  const change = builtinChangeInput.parse(given);
  const credentialId = await spendConfirmation(actor, confirmationTarget(change), "approve", rawAssertion);
  await transaction(async (tx) => {
    await assertOwner(tx, actor);
    const [before] = await tx
      .select()
      .from(approvalPolicies)
      .where(and(eq(approvalPolicies.workspaceId, actor.workspaceId), eq(approvalPolicies.builtin, change.key)))
      .for("update");
    const holdsAbove = change.holds_above ?? (before?.minPriority != null ? before.minPriority - 1 : DEFAULT_HOLDS_ABOVE);
    const wanted = change.on ? builtinPolicy(change.key, actor.workspaceId, holdsAbove) : null;
    // Already so: nothing to change, nothing to audit.
    if (wanted ? before && before.minPriority === (wanted.minPriority ?? null) : !before) return;
    if (before) await tx.delete(approvalPolicies).where(eq(approvalPolicies.id, before.id));
    if (wanted) await tx.insert(approvalPolicies).values(wanted);
    await appendAudit(tx, [
      {
        actor,
        action: "approval_policy.builtin_changed",
        resource: { type: "approval_policy", id: wanted?.id ?? before!.id },
        summary: { builtin: change.key, on: change.on, ...(change.key === "holds" && change.on ? { holds_above: holdsAbove } : {}), was_on: before !== undefined, passkey_credential_id: credentialId },
      },
    ]);
  });
  return (await builtinStates(actor.workspaceId)).find((s) => s.key === change.key)!;
}
