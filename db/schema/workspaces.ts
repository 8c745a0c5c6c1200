import { boolean, check, integer, pgTable, text } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, idColumn } from "./columns";

export const workspaces = pgTable(
  "workspaces",
  {
    id: idColumn(),
    name: text("name").notNull(),
    /** Escalation (SPEC §5): an approval still pending this long after it was asked... */
    approvalEscalationSeconds: integer("approval_escalation_seconds"),
    /** ...is mailed to the members with this role, once. Both null: no escalation. */
    approvalEscalationRole: text("approval_escalation_role", { enum: ["owner", "admin", "approver"] }),
    /** Holds asking for a priority below this never preempt (SPEC §12); 0: any priority may. */
    holdPreemptMinPriority: integer("hold_preempt_min_priority").notNull().default(0),
    /** An agent that read untrusted mail stays tainted this long after its last read (SPEC §13), unless a person clears it. */
    taintWindowSeconds: integer("taint_window_seconds").notNull().default(86400),
    /** Recipient domains people trust (lower case): mail to them is never mail to an untrusted recipient. Set by admins only. */
    trustedDomains: text("trusted_domains").array().notNull().default(sql`'{}'::text[]`),
    /** An agent (or workspace-wide key) may have at most this many approvals pending at once: more floods people (approval fatigue). */
    maxPendingApprovalsPerAgent: integer("max_pending_approvals_per_agent").notNull().default(20),
    /** SCIM's `agentdraft-owner` group grants and takes the owner role (docs/scim.md). Off: SCIM never changes an owner. Only an owner flips it. */
    scimOwnerGroup: boolean("scim_owner_group").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    check("workspaces_taint_window_range", sql`${t.taintWindowSeconds} between 60 and 2592000`),
    check("workspaces_max_pending_approvals_range", sql`${t.maxPendingApprovalsPerAgent} between 1 and 1000`),
    check("workspaces_hold_preempt_min_priority_range", sql`${t.holdPreemptMinPriority} between 0 and 100`),
    check(
      "workspaces_escalation_check",
      sql`(${t.approvalEscalationSeconds} is null) = (${t.approvalEscalationRole} is null) and (${t.approvalEscalationSeconds} is null or ${t.approvalEscalationSeconds} between 60 and 2592000)`,
    ),
  ],
);

export type WorkspaceRow = typeof workspaces.$inferSelect;
