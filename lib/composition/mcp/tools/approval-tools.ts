import { z } from "zod";
import { cancelApproval, checkApproval, getApproval, listApprovals } from "../../../domains/approvals/approvals";
import { createApproval } from "../../../domains/approvals/create-approval";
import { consumeApproval } from "../../../domains/approvals/consume-approval";
import { policiesForKey, serializePolicy } from "../../../domains/approvals/policies";
import { checkApprovalInput, consumeApprovalInput, createApprovalInput, listApprovalsQuery } from "../../../domains/approvals/schemas";
import { READ_ONLY, defineTool, idArg, idempotencyKeyArg } from "../define-tool";

const scope = "approvals" as const;

export const checkApprovalPolicyTool = defineTool({
  name: "check_approval_policy",
  title: "Check approval policy",
  description: "Ask whether an action (action_class, optional amount) needs human approval under the workspace's policies, and which rule applies.",
  scope,
  input: checkApprovalInput.shape,
  annotations: READ_ONLY,
  run: ({ actor }, args) => checkApproval(actor, args),
});

export const listApprovalPoliciesTool = defineTool({
  name: "list_approval_policies",
  title: "List approval policies",
  description:
    "The workspace's rules for which actions need a person (read only: people set them in the web app): email.send rules hold your mail for approval, " +
    "hold.place and lease.acquire rules with untrusted_trace answer approval_required once this agent has read untrusted mail (the server records it), other action classes are told by check_approval_policy.",
  scope,
  input: {},
  annotations: READ_ONLY,
  run: async ({ actor }) => ({ object: "list", data: (await policiesForKey(actor)).map(serializePolicy), has_more: false }),
});

export const requestApprovalTool = defineTool({
  name: "request_approval",
  title: "Request approval",
  description:
    "Ask signed-in humans to approve an action before you take it: a one-line summary and the evidence they need (JSON). " +
    "Returns a pending approval; wait for the decision with await_approval. No API key can decide an approval. " +
    "Pass hold_ids to keep your live holds while it waits (kept up to the hold TTL cap from now, never past the approval's expiry, unless a person extends them): approving commits them at once (on_approve: commit) or keeps them with a fresh TTL (hold); denial, expiry or cancel releases them.",
  scope,
  input: { ...createApprovalInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: (body) => ({ path: "/v1/approvals", body, status: 201 }),
  run: async ({ actor }, args) => {
    const row = await createApproval(actor, createApprovalInput.parse(args));
    return getApproval(actor, row.id);
  },
});

export const getApprovalTool = defineTool({
  name: "get_approval",
  title: "Get an approval",
  description: "Retrieve an approval now: pending, approved, denied, expired or cancelled, with the decision and its signed receipt.",
  scope,
  input: { approval_id: idArg("appr_...") },
  annotations: READ_ONLY,
  run: ({ actor }, { approval_id }) => getApproval(actor, approval_id),
});

export const awaitApprovalTool = defineTool({
  name: "await_approval",
  title: "Await an approval",
  description:
    "Long-poll: return as soon as the approval is decided (or expires), or after wait_seconds (at most 30) with it still pending; then call again. " +
    "Act only on status approved.",
  scope,
  input: {
    approval_id: idArg("appr_..."),
    wait_seconds: z.number().int().min(1).max(30).default(30).describe("how long to wait for a decision, 1-30 seconds"),
  },
  annotations: READ_ONLY,
  run: ({ actor }, { approval_id, wait_seconds }) => getApproval(actor, approval_id, wait_seconds),
});

export const listApprovalsTool = defineTool({
  name: "list_approvals",
  title: "List approvals",
  description: "List approvals this key can see (an agent-bound key: its own agent's), newest first, optionally by status.",
  scope,
  input: listApprovalsQuery.shape,
  annotations: READ_ONLY,
  run: async ({ actor }, args) => {
    const { items, hasMore } = await listApprovals(actor, args);
    return { object: "list", data: items, has_more: hasMore };
  },
});

export const cancelApprovalTool = defineTool({
  name: "cancel_approval",
  title: "Cancel an approval request",
  description: "Withdraw a pending approval you requested (it becomes cancelled, with a receipt). Fails with conflict if it is already decided.",
  scope,
  input: { approval_id: idArg("appr_..."), idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: ({ approval_id }) => ({ path: `/v1/approvals/${approval_id}/cancel` }),
  run: ({ actor }, { approval_id }) => cancelApproval(actor, approval_id),
});

export const consumeApprovalTool = defineTool({
  name: "consume_approval",
  title: "Spend an approval",
  description:
    "Spend an approved approval once, right before you take the action, giving the exact action you asked approval for (it must hash to the approved one). " +
    "Take the action only if this succeeds; a second spend, a different action, a pending, denied or expired approval, or one with fewer votes than the workspace rule now needs fails with approval_consumed, action_mismatch, approval_not_approved, approval_expired or approval_insufficient.",
  scope,
  input: { approval_id: idArg("appr_..."), ...consumeApprovalInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: ({ approval_id, action }) => ({ path: `/v1/approvals/${approval_id}/consume`, body: { action } }),
  run: ({ actor }, { approval_id, action }) => consumeApproval(actor, approval_id, action),
});

export const APPROVAL_TOOLS = [
  checkApprovalPolicyTool,
  listApprovalPoliciesTool,
  requestApprovalTool,
  getApprovalTool,
  awaitApprovalTool,
  listApprovalsTool,
  cancelApprovalTool,
  consumeApprovalTool,
];
