import { admitRequest } from "../../platform/api/admit-request";

/**
 * Whose health details this request may see: the workspace of a valid API key of any scope (a
 * wrong one is 401, as everywhere), or of a signed-in member of any role. Anyone else (null)
 * sees the status alone.
 */
export async function healthViewer(req: Request): Promise<{ workspaceId: string } | null> {
  if (req.headers.get("authorization") !== null) {
    const { key } = await admitRequest(req, new Headers());
    return { workspaceId: key.workspaceId };
  }
  if (!req.headers.get("cookie")) return null;
  const { currentMember } = await import("../../domains/auth/current-member");
  const member = await currentMember();
  return member ? { workspaceId: member.workspace.id } : null;
}
