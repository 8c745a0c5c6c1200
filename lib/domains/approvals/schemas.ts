import { z } from "zod";
import { APPROVAL_STATUSES } from "../../../db/schema";
import { paginationQuery } from "../../platform/api/pagination";
import { canonicalJson } from "../../platform/crypto/canonical-json";
import { boundHoldSchema, boundHoldsInput } from "./bound-holds";
import { idField } from "../../platform/api/id-field";

export const MAX_EVIDENCE_BYTES = 32 * 1024;
export const MAX_ACTION_BYTES = 8 * 1024;

const amount = z.number().finite().min(0).max(1e15).describe("in the currency's major unit");
const actionClass = z.string().trim().min(1).max(64).regex(/^[a-z0-9_.:-]+$/i, "letters, digits and . _ : -");

/** What exactly will be done, as a JSON object: bounded like evidence (its size here; its depth by the API's input guard). */
const actionInput = z
  .record(z.string(), z.unknown())
  .refine((a) => Buffer.byteLength(canonicalJson(a)) <= MAX_ACTION_BYTES, `at most ${MAX_ACTION_BYTES} bytes of JSON`)
  .optional();

export const createApprovalInput = z.object({
  summary: z.string().trim().min(1).max(200).refine((s) => !/[\r\n]/.test(s), "one line: no line breaks"),
  evidence: z
    .unknown()
    .refine((e) => e !== undefined, "evidence is required (any JSON)")
    .refine((e) => e === undefined || Buffer.byteLength(canonicalJson(e)) <= MAX_EVIDENCE_BYTES, `at most ${MAX_EVIDENCE_BYTES} bytes of JSON`)
    .describe("what a human needs to decide, as JSON"),
  action: actionInput
    .describe("what exactly will be done, e.g. {type: \"refund\", order: 8812, amount: 120, currency: \"EUR\"}; the receipt binds its canonical JSON's sha256"),
  action_class: actionClass.optional().describe("what kind of action: the action's own `type` when it has one (a different value is 400); the rules of this class apply"),
  amount: amount.optional().describe("in the currency's major unit: the action's own numeric `amount` when it has one (a different value is 400)"),
  currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, "an ISO 4217 code such as EUR").optional(),
  expires_in_seconds: z.number().int().min(60).max(30 * 86400).optional(),
  required_approvals: z.number().int().min(1).max(10).optional(),
  ...boundHoldsInput,
});
export type CreateApprovalInput = z.output<typeof createApprovalInput>;

export const checkApprovalInput = z.object({
  action_class: actionClass,
  amount: amount.optional(),
  agent_id: idField("agent").optional().describe("default: the calling key's agent"),
});

export const getApprovalQuery = z.object({
  wait: z.coerce.number().int().min(0).max(30).optional().describe("long-poll: return as soon as decided, or after this many seconds"),
});

export const listApprovalsQuery = paginationQuery.extend({ status: z.enum(APPROVAL_STATUSES).optional() });

export const policyInput = z.object({
  name: z.string().trim().min(1).max(100),
  action_class: actionClass,
  agent_id: z.string().min(1).nullish(),
  min_amount: amount.nullish(),
  required_approvals: z.number().int().min(1).max(10).default(1),
  expires_in_seconds: z.number().int().min(60).max(30 * 86400).default(86400),
  inbox_id: z.string().min(1).nullish().describe("email.send: only mail from this inbox"),
  recipient_domain: z
    .string()
    .trim()
    .toLowerCase()
    .transform((d) => d.replace(/^@/, ""))
    .pipe(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, "a domain such as example.com"))
    .nullish()
    .describe("email.send: only mail to someone at this domain"),
  new_recipients: z.boolean().default(false).describe("email.send: only mail to an untrusted recipient: not a member, not an inbox of the workspace, not at a domain its admins trust, and never really sent to by the workspace (writing in does not make anyone trusted)"),
  untrusted_trace: z.boolean().default(false).describe("only while the agent is tainted: it read received mail from outside the workspace (or unauthenticated, or flagged for prompt injection) within the workspace's taint window (recorded by the server, whatever the request carries), its request names a trace that starts at such mail, or (email.send) it replies to such mail"),
  min_priority: z.number().int().min(0).max(100).nullish().describe("hold.place and lease.acquire: only holds or leases at or above this priority"),
  resource: z
    .string()
    .trim()
    .max(200)
    .regex(/^[A-Za-z0-9][A-Za-z0-9:._/@-]*\*?$/, "a lease resource (deploy:production), or a prefix ending in * (deploy:*)")
    .nullish()
    .describe("lease.acquire: only leases on this resource; ending in *, on every resource that starts with what precedes it (deploy:*)"),
});

export const approvalPolicySchema = z
  .object({
    id: z.string().describe("apol_..."),
    object: z.literal("approval_policy"),
    name: z.string(),
    action_class: z.string().describe("email.send, hold.place, lease.acquire and webhook_endpoint.change are enforced where AgentDraft acts; any other class by POST /v1/approvals/check and consume"),
    agent_id: z.string().nullable().describe("null: any agent"),
    min_amount: z.number().nullable().describe("applies at or above this amount; null: always"),
    required_approvals: z.number().int().describe("the minimum quorum of a request it matches"),
    expires_in_seconds: z.number().int().describe("the default expiry of a request it matches"),
    inbox_id: z.string().nullable().describe("email.send: only mail from this inbox"),
    recipient_domain: z.string().nullable().describe("email.send: only mail to someone at this domain"),
    new_recipients: z.boolean().describe("email.send: only mail to an untrusted recipient: not a member, not an inbox of the workspace, not at a domain its admins trust, and never really sent to by the workspace (writing in does not make anyone trusted)"),
    untrusted_trace: z.boolean().describe("only while the agent is tainted: it read received mail from outside the workspace (or unauthenticated, or flagged for prompt injection) within the workspace's taint window (recorded by the server, whatever the request carries), its request names a trace that starts at such mail, or (email.send) it replies to such mail"),
    min_priority: z.number().int().nullable().describe("hold.place and lease.acquire: only at or above this priority"),
    resource: z.string().nullable().describe("lease.acquire: only leases on this resource; ending in *, on every resource that starts with what precedes it (deploy:*)"),
    builtin: z
      .enum(["mail", "webhooks", "leases", "holds"])
      .nullable()
      .describe("a rule every workspace starts with (docs/security.md, Safe by default); only an owner with a passkey turns it off. null: a rule an admin added"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ApprovalPolicy" });

export const approvalSchema = z
  .object({
    id: z.string().describe("appr_..."),
    object: z.literal("approval"),
    agent_id: z.string().nullable(),
    summary: z.string(),
    evidence: z.unknown(),
    action: z.record(z.string(), z.unknown()).nullable().describe("the action the agent will take, as asked"),
    action_sha256: z.string().nullable().describe("sha256 of the action's canonical JSON (bound by the receipt)"),
    action_class: z.string().nullable(),
    amount: z.number().nullable(),
    currency: z.string().nullable(),
    status: z.enum(APPROVAL_STATUSES),
    required_approvals: z.number().int(),
    approvals: z.number().int().describe("distinct members who approved so far"),
    policy_id: z.string().nullable(),
    expires_at: z.iso.datetime(),
    decided_at: z.iso.datetime().nullable(),
    escalated_at: z.iso.datetime().nullable().describe("when it was escalated to the workspace's escalation role (still pending past the delay)"),
    decisions: z.array(z.object({ member_id: z.string(), decision: z.enum(["approve", "deny"]), note: z.string().nullable(), decided_at: z.iso.datetime() })),
    hold_ids: z.array(z.string()).describe("the holds bound to this approval"),
    on_approve: z.enum(["commit", "hold"]),
    holds: z.array(boundHoldSchema).describe("the bound holds as they are now; a preempted one names its preemptor"),
    receipt: z
      .string()
      .nullable()
      .describe("compact JWS (EdDSA) over the decision and what was asked; verify against /.well-known/jwks.json?workspace_id=… and check its workspace_id"),
    consumed: z.boolean().describe("whether the approved action was spent (POST /v1/approvals/{id}/consume, or the product sending held mail); an approval is spent once"),
    consumed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Approval" });

export const consumeApprovalInput = z.object({
  action: actionInput.describe("the action about to be done; it must hash (canonical JSON, sha256) to the approved action. Omit it only when the approval named no action"),
});

export const approvalCheckSchema = z
  .object({
    object: z.literal("approval_check"),
    required: z.boolean(),
    policy: z.object({ id: z.string(), name: z.string(), required_approvals: z.number().int(), expires_in_seconds: z.number().int() }).nullable(),
  })
  .meta({ id: "ApprovalCheck" });
