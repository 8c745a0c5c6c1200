export { createAgentDraftClient, apiBaseUrl, waitForApproval, type AgentDraftClient, type ClientOptions } from "./client.js";
export { streamEvents, type AgentDraftEvent, type EventsOptions } from "./events.js";
export { AgentDraftError, unwrap, toAgentDraftError, type Problem } from "./errors.js";
export { verifyWebhook, constantTimeEqual, WebhookVerificationError, type WebhookEvent, type VerifyOptions } from "./webhooks.js";
export type { paths, components, operations } from "./schema.js";
