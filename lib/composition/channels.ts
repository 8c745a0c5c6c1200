import type { BuiltinKey } from "../domains/approvals/builtin-policies";

/**
 * Every channel an agent can act through, in one place (issue #48): what leaves the workspace
 * through it (or which other agent it reaches), and the gate that covers it while the agent is
 * tainted. An agent acts through the REST API (/api/v1, OPERATIONS), the MCP server (MCP_TOOLS),
 * and the TypeScript and Python SDKs, which are generated from OPERATIONS and call exactly those
 * operations (sdk/, sdk-python/: their tests keep them equal), so they are covered by the REST
 * names below. The web app is people, not agents.
 *
 * channels.test.ts fails when an operation or a tool is in neither CHANNELS nor INSIDE, when a
 * tool the MCP server marks open-world is not a gated channel, or when a built-in rule gates no
 * channel; the red-team test (lib/domains/approvals/red-team.db.test.ts) acts through every
 * channel here and checks, with its own recorder of what leaves, that nothing reaches an
 * untrusted destination without a person.
 */
export type Channel = {
  channel: "mail" | "drafts" | "forward" | "webhooks" | "leases" | "holds" | "handoffs";
  /** Where what the agent does arrives. */
  reaches: string;
  /**
   * The gate: a built-in rule (lib/domains/approvals/builtin-policies.ts) enforced where the
   * product acts, or, for a handoff, the taint passing to the recipient (which its own gates then hold).
   */
  gate: { builtin: BuiltinKey; enforcedIn: string } | { taintPasses: true; enforcedIn: string };
  rest: string[];
  mcp: string[];
};

export const CHANNELS: Channel[] = [
  {
    channel: "mail",
    reaches: "the message's To, Cc and Bcc recipients (an inbox here gets a local copy that carries the sender's taint)",
    gate: { builtin: "mail", enforcedIn: "lib/domains/approvals/mail-gate.ts" },
    rest: ["sendMessage", "replyToMessage"],
    mcp: ["send_message", "reply_to_message"],
  },
  {
    channel: "forward",
    reaches: "the forward's recipients, with the original message and its files",
    gate: { builtin: "mail", enforcedIn: "lib/domains/approvals/mail-gate.ts" },
    rest: ["forwardMessage"],
    mcp: ["forward_message"],
  },
  {
    channel: "drafts",
    reaches: "the draft's recipients when it is sent (a draft itself stays here)",
    gate: { builtin: "mail", enforcedIn: "lib/domains/approvals/mail-gate.ts" },
    rest: ["sendDraft"],
    mcp: ["send_draft"],
  },
  {
    channel: "webhooks",
    reaches: "the endpoint's URL, with every event its filters match",
    gate: { builtin: "webhooks", enforcedIn: "lib/domains/webhooks/webhook-gate.ts" },
    rest: ["createWebhookEndpoint", "updateWebhookEndpoint"],
    mcp: [],
  },
  {
    channel: "leases",
    reaches: "the systems that trust the lease's fencing token (a deploy, a migration)",
    gate: { builtin: "leases", enforcedIn: "lib/domains/leases/lease-gate.ts" },
    rest: ["acquireLease"],
    mcp: ["acquire_lease"],
  },
  {
    channel: "holds",
    reaches: "people's calendars (and their providers), preempting lower holds",
    gate: { builtin: "holds", enforcedIn: "lib/domains/approvals/hold-gate.ts" },
    rest: ["placeHold", "placeMultiCalendarHold"],
    mcp: ["place_hold"],
  },
  {
    channel: "handoffs",
    reaches: "another agent of the workspace, which then acts through the channels above",
    gate: { taintPasses: true, enforcedIn: "lib/domains/taint/agent-taint.ts (passTaint)" },
    rest: ["createHandoff"],
    mcp: ["handoff"],
  },
];

/**
 * Everything else an agent can call, and why nothing leaves the workspace through it: reads (which
 * taint the reader when they hand out mail from outside), changes to the workspace's own state,
 * or a change to something that already left through a gated channel.
 */
export const INSIDE: { rest: string[]; mcp: string[]; why: string }[] = [
  {
    why: "reads: answers go to the caller only (reading mail from outside taints it)",
    rest: [
      "getMe", "listAgents", "getAgent", "listAuditEntries", "verifyAuditChain", "listAuditCheckpoints", "exportAuditEntries", "listCalendars", "getCalendar",
      "getAvailability", "listCalendarEvents", "listCalendarOrphans", "listHolds", "getHold", "listInboxes", "getInbox", "listMessages", "listThreads", "getMessage",
      "getThread", "downloadAttachment", "downloadMessageSource", "listDrafts", "getDraft", "downloadDraftAttachment", "listDomains", "getDomain", "listApprovals",
      "getApproval", "checkApprovalPolicy", "listApprovalPolicies", "getApprovalPolicy", "listWebhookEndpoints", "getWebhookEndpoint", "listWebhookDeliveries",
      "listNotificationChannels", "listHandoffs", "getHandoff", "getTrace", "listLeases", "getLease", "verifyLease", "streamEvents",
    ],
    mcp: [
      "whoami", "list_inboxes", "list_messages", "get_message", "list_threads", "get_thread", "list_drafts", "list_calendars", "check_availability", "list_calendar_events",
      "list_calendar_orphans", "get_hold", "check_approval_policy", "list_approval_policies", "get_approval", "await_approval", "list_approvals", "query_audit",
      "verify_audit_chain", "get_handoff", "list_handoffs", "get_lease", "list_leases", "verify_fencing_token", "wait_for_events",
    ],
  },
  {
    why: "the workspace's own state: agents, inboxes, labels, drafts (sent only through sendDraft), approvals, notes, claims, calendars, its sending domains",
    rest: [
      "createAgent", "updateAgent", "createInbox", "updateInbox", "deleteInbox", "labelMessage", "labelThread", "createDraft", "updateDraft", "discardDraft",
      "requestApproval", "cancelApproval", "consumeApproval", "addAgentNote", "claimMessage", "releaseMessageClaim", "completeMessageClaim", "createCalendar",
      "createDomain", "verifyDomain", "deleteDomain",
    ],
    mcp: ["label_message", "label_thread", "create_draft", "update_draft", "request_approval", "cancel_approval", "consume_approval", "add_audit_note", "claim_message", "release_message", "complete_message"],
  },
  {
    why: "a change to what a gated channel already made, that sends nothing new anywhere new: a hold's life, a lease's life, a handoff's progress, an endpoint's secret, a delivery retried to the URL a person approved, a domain's records",
    rest: [
      "extendHold", "commitHold", "releaseHold", "cancelEvent", "renewLease", "releaseLease", "claimHandoff", "extendHandoffClaim", "completeHandoff", "failHandoff",
      "deleteWebhookEndpoint", "rotateWebhookEndpointSecret", "retryWebhookDelivery",
    ],
    mcp: ["extend_hold", "commit_hold", "release_hold", "renew_lease", "release_lease", "next_handoff", "complete_handoff", "fail_handoff"],
  },
];
