export * from "./workspaces";
export * from "./members";
export * from "./agents";
export * from "./api-keys";
