import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { approvalCheckSchema, approvalPolicySchema, approvalSchema, checkApprovalInput, consumeApprovalInput, createApprovalInput, getApprovalQuery, listApprovalsQuery } from "./schemas";

const tag = "Approvals";
const scope = "approvals" as const;

export const createApprovalOp = defineOperation({
  method: "POST",
  path: "/v1/approvals",
  operationId: "requestApproval",
  summary: "Ask signed-in humans to approve an action",
  description:
    "Members decide in the web app; no API key can decide. A matching workspace policy sets the minimum quorum and the default expiry. " +
    "429 too_many_pending_approvals when this agent (a workspace-wide key: this key) already has as many approvals pending as the workspace allows (limit, 20 by default; admins set it): wait for decisions or cancel approvals you no longer need, then ask again. " +
    "hold_ids binds live holds (agent-bound keys: their own) to the approval: while it is pending they are kept up to the hold TTL cap (HOLD_TTL_MAX_SECONDS) from binding, never past the approval's expiry, unless a person extends them to its expiry in the web app; they cannot be committed by the agent (409 hold_awaiting_approval); " +
    "the deciding approve vote commits them in the same transaction (on_approve: commit) or keeps them with a fresh TTL (hold); denial, expiry or cancel releases them. " +
    "Preemption is unchanged: a preempted bound hold is named in approval.resolved (holds[]) and on the approval. 404 for a hold the key cannot see, 409 hold_not_active for a dead hold, 409 conflict for one already waiting on another approval.",
  tag,
  scope,
  body: createApprovalInput,
  responses: { 201: { description: "The pending approval", schema: approvalSchema } },
});

export const listApprovalsOp = defineOperation({
  method: "GET",
  path: "/v1/approvals",
  operationId: "listApprovals",
  summary: "List approvals, newest first",
  tag,
  scope,
  query: listApprovalsQuery,
  responses: { 200: { description: "A page of approvals", schema: listOf(approvalSchema) } },
});

export const getApprovalOp = defineOperation({
  method: "GET",
  path: "/v1/approvals/{id}",
  operationId: "getApproval",
  summary: "Retrieve an approval; with ?wait=N (up to 30 s), long-poll until it is decided",
  tag,
  scope,
  query: getApprovalQuery,
  responses: { 200: { description: "The approval", schema: approvalSchema } },
});

export const cancelApprovalOp = defineOperation({
  method: "POST",
  path: "/v1/approvals/{id}/cancel",
  operationId: "cancelApproval",
  summary: "Withdraw a pending approval (the requesting agent, or a workspace-wide key)",
  tag,
  scope,
  responses: { 200: { description: "The cancelled approval", schema: approvalSchema } },
});

export const checkApprovalOp = defineOperation({
  method: "POST",
  path: "/v1/approvals/check",
  operationId: "checkApprovalPolicy",
  summary: "Does this action need approval under the workspace's policies?",
  tag,
  scope,
  body: checkApprovalInput,
  responses: { 200: { description: "Whether approval is required, and the rule", schema: approvalCheckSchema } },
});

export const consumeApprovalOp = defineOperation({
  method: "POST",
  path: "/v1/approvals/{id}/consume",
  operationId: "consumeApproval",
  summary: "Spend an approved approval, once, on the exact approved action",
  description:
    "Succeeds once, for an approved approval that has not expired, when `action` hashes (sha256 of its canonical JSON) to the approved action. Otherwise 409 with a code saying why: `approval_not_approved` (pending, denied or cancelled), `approval_expired`, `approval_consumed` (spent already, or held mail the product sends itself), `action_mismatch`, or `approval_insufficient` (the workspace rule that gates the approval's action class and amount now, found by the server, needs more member votes than it has). An agent-bound key spends only its own agent's approvals. Writes an `approval.consumed` audit entry and event. For actions AgentDraft does not perform itself, this is where a policy is enforced: do the action only after a 200 here.",
  tag,
  scope,
  body: consumeApprovalInput,
  responses: { 200: { description: "The spent approval (consumed: true)", schema: approvalSchema } },
});

const policyTag = "Approval policies";
const policyRules =
  "Rules are read only over the API: members with the admin or owner role add and delete them in the web app (Approvals → Policies), so an agent cannot switch off the rules that gate it. " +
  "email.send rules hold mail for a person (202 pending_approval); hold.place and lease.acquire rules with untrusted_trace answer 403 approval_required while the agent is tainted (it read untrusted mail, with or without a trace header); " +
  "any other action class is told by POST /v1/approvals/check and enforced by consume. An agent-bound key sees the rules for any agent and for its own.";

export const listApprovalPoliciesOp = defineOperation({
  method: "GET",
  path: "/v1/approval-policies",
  operationId: "listApprovalPolicies",
  summary: "List the workspace's approval policies (which actions need a person)",
  description: policyRules,
  tag: policyTag,
  scope,
  responses: { 200: { description: "Every rule the key can see, by action class (has_more is false)", schema: listOf(approvalPolicySchema) } },
});

export const getApprovalPolicyOp = defineOperation({
  method: "GET",
  path: "/v1/approval-policies/{id}",
  operationId: "getApprovalPolicy",
  summary: "Retrieve an approval policy",
  description: policyRules,
  tag: policyTag,
  scope,
  responses: { 200: { description: "The rule", schema: approvalPolicySchema } },
});
