import { admitRequest } from "../api/admit-request";

/**
 * Whether this request may see health details: a valid API key of any scope (a wrong one is
 * 401, as everywhere), or a signed-in member of any role. Anyone else sees the status alone.
 */
export async function healthViewer(req: Request): Promise<boolean> {
  if (req.headers.get("authorization") !== null) {
    await admitRequest(req, new Headers());
    return true;
  }
  if (!req.headers.get("cookie")) return false;
  const { currentMember } = await import("../auth/current-member");
  return (await currentMember()) !== null;
}
