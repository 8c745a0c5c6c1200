// The public entry of lib/domains/workspaces: what another domain may use of it (a domain never reaches into another's files).
export { createWorkspace, createWorkspaceInput } from "./create-workspace";
export { getWorkspace } from "./get-workspace";
