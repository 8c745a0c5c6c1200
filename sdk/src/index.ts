export { createAgentDraftClient, apiBaseUrl, waitForApproval, withApproval, withPolicyApproval, APPROVAL_HEADER, ApprovalNotGrantedError, type AgentDraftClient, type ClientOptions } from "./client.js";
export { withLease, withClaim, type Lease, type LeaseOptions, type MessageClaim } from "./leases.js";
export { streamEvents, type AgentDraftEvent, type EventsOptions } from "./events.js";
export { AgentDraftError, unwrap, toAgentDraftError, type Problem } from "./errors.js";
export { verifyWebhook, constantTimeEqual, WebhookVerificationError, type WebhookEvent, type VerifyOptions } from "./webhooks.js";
export type { paths, components, operations } from "./schema.js";
export { PermanentFailure, type ClaimedHandoff, type HandoffEnvelope, type NewHandoff, type AgentNote, type WorkContext, type WorkOptions } from "./handoffs.js";
