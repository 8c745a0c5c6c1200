/** Who performs an action: recorded on every audit entry. */
export type Actor =
  | { type: "key"; workspaceId: string; keyId: string; agentId: string | null; traceId?: string; requestId?: string; via?: "mcp" }
  | { type: "member"; workspaceId: string; memberId: string; traceId?: string; requestId?: string }
  | { type: "operator"; workspaceId: string; name: string; traceId?: string; requestId?: string }
  | { type: "system"; workspaceId: string; job: string; traceId?: string; requestId?: string };

/** The operator CLI acting on a workspace. */
export const operatorActor = (workspaceId: string): Actor => ({ type: "operator", workspaceId, name: "cli" });
