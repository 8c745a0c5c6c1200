import { boolean, check, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired", "cancelled"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A consequential action waiting for signed-in humans (SPEC §5). */
export const approvals = pgTable(
  "approvals",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: text("agent_id"),
    apiKeyId: text("api_key_id"),
    summary: text("summary").notNull(),
    evidence: jsonb("evidence").$type<unknown>().notNull(),
    summarySha256: text("summary_sha256").notNull(),
    evidenceSha256: text("evidence_sha256").notNull(),
    /** What exactly will be done (SPEC §13), and the sha256 of its canonical JSON the receipt binds. */
    action: jsonb("action").$type<Record<string, unknown>>(),
    actionSha256: text("action_sha256"),
    actionClass: text("action_class"),
    amount: numeric("amount", { precision: 20, scale: 4 }),
    currency: text("currency"),
    policyId: text("policy_id"),
    requiredApprovals: integer("required_approvals").notNull(),
    status: text("status", { enum: APPROVAL_STATUSES }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    /** Compact JWS (EdDSA) over the decision, set when resolved. */
    receipt: text("receipt"),
    escalatedAt: timestamp("escalated_at", { withTimezone: true, mode: "date" }),
    /** When the owner and approvers were mailed about it (by a job, after the request committed). */
    notifiedAt: timestamp("notified_at", { withTimezone: true, mode: "date" }),
    traceId: text("trace_id"),
    /** When the approved action was spent (SPEC §13): once, by `consume` or by the product sending gated mail. */
    consumedAt: timestamp("consumed_at", { withTimezone: true, mode: "date" }),
    /** Who spent it: the consuming key, or null when the product itself performed the action. */
    consumedByKeyId: text("consumed_by_key_id"),
    /** Holds bound to this approval (SPEC §12) and what approving does with them. */
    holdIds: text("hold_ids").array().notNull().default([]),
    onApprove: text("on_approve", { enum: ["commit", "hold"] }).notNull().default("commit"),
    createdAt: createdAt(),
  },
  (t) => [
    index("approvals_workspace_idx").on(t.workspaceId, t.id),
    index("approvals_pending_idx").on(t.expiresAt).where(sql`${t.status} = 'pending'`),
    /** Counting an agent's (or workspace-wide key's) pending approvals against the workspace's cap. */
    index("approvals_pending_agent_idx").on(t.workspaceId, t.agentId, t.apiKeyId).where(sql`${t.status} = 'pending'`),
    check("approvals_required_check", sql`${t.requiredApprovals} between 1 and 10`),
    check("approvals_status_check", sql`${t.status} in ('pending', 'approved', 'denied', 'expired', 'cancelled')`),
  ],
);

/** One member's decision on an approval; a member decides once. */
export const approvalDecisions = pgTable(
  "approval_decisions",
  {
    id: idColumn(),
    approvalId: text("approval_id")
      .notNull()
      .references(() => approvals.id, { onDelete: "cascade" }),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    /** Who decided. No foreign key: a decision is history and outlives the membership (removing a member keeps it). */
    memberId: text("member_id").notNull(),
    decision: text("decision", { enum: ["approve", "deny"] }).notNull(),
    note: text("note"),
    /** The passkey (credential id, as stored in `authenticators`) whose fresh, user-verified assertion made this decision; null only for decisions recorded before it was required. */
    passkeyCredentialId: text("passkey_credential_id"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("approval_decisions_member_key").on(t.approvalId, t.memberId)],
);

/** Workspace rules: which actions need approval, with what quorum and expiry. */
export const approvalPolicies = pgTable(
  "approval_policies",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    actionClass: text("action_class").notNull(),
    /** null: any agent. */
    agentId: text("agent_id"),
    /** Approval is required at or above this amount; null: always. */
    minAmount: numeric("min_amount", { precision: 20, scale: 4 }),
    requiredApprovals: integer("required_approvals").notNull().default(1),
    expiresInSeconds: integer("expires_in_seconds").notNull().default(86400),
    /** Mail rules (action class `email.send`): only mail from this inbox... */
    inboxId: text("inbox_id"),
    /** ...only mail to a recipient at this domain (lower case, no @)... */
    recipientDomain: text("recipient_domain"),
    /** ...only mail to someone the workspace has not exchanged mail with before. */
    newRecipients: boolean("new_recipients").notNull().default(false),
    /** Taint: applies only when the request's trace starts at received mail that is unauthenticated or flagged for injection. */
    untrustedTrace: boolean("untrusted_trace").notNull().default(false),
    /** Holds (action class `hold.place`): only at or above this priority. */
    minPriority: integer("min_priority"),
    /** Leases (`lease.acquire`): only on this resource, or on resources starting with what precedes a final `*`. */
    resource: text("resource"),
    /**
     * A built-in rule every workspace starts with (lib/domains/approvals/builtin-policies.ts: mail,
     * webhooks, leases, holds): only an owner with a passkey turns it off or changes it.
     */
    builtin: text("builtin"),
    createdAt: createdAt(),
  },
  (t) => [
    index("approval_policies_workspace_idx").on(t.workspaceId, t.actionClass),
    uniqueIndex("approval_policies_builtin_key").on(t.workspaceId, t.builtin).where(sql`${t.builtin} is not null`),
  ],
);

/** Ed25519 keys that sign approval receipts; public halves are published as a JWKS. */
export const signingKeys = pgTable(
  "signing_keys",
  {
    kid: text("kid").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    publicJwk: jsonb("public_jwk").$type<Record<string, string>>().notNull(),
    /** The private JWK, encrypted with lib/platform/crypto/secret-box (AES-256-GCM). */
    privateJwkSealed: text("private_jwk_sealed").notNull(),
    createdAt: createdAt(),
    retiredAt: timestamp("retired_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("signing_keys_workspace_idx").on(t.workspaceId)],
);

export type ApprovalRow = typeof approvals.$inferSelect;
export type ApprovalPolicyRow = typeof approvalPolicies.$inferSelect;
