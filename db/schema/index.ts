export * from "./workspaces";
export * from "./members";
export * from "./agents";
export * from "./api-keys";
export * from "./audit-entries";
export * from "./audit-heads";
export * from "./idempotency-keys";
export * from "./rate-limit-buckets";
