import { currentMember } from "@/lib/domains/auth/current-member";
import { currentSessionToken } from "@/lib/domains/auth/session-token";
import { openLiveChannel } from "@/lib/domains/events/live-channel";
import { problemResponse } from "@/lib/platform/api/problem";
import { newRequestId } from "@/lib/platform/api/request-ids";
import { AppError } from "@/lib/platform/errors";

export const maxDuration = 300;
export const dynamic = "force-dynamic";

/**
 * GET /api/live?types=approval.requested,approval.resolved — for the web app's open pages: the
 * signed-in member's workspace events from the outbox (Server-Sent Events), so a page refreshes
 * itself when something it shows changed. Members read everything in their workspace. Counted per
 * member; ends when the member is removed or the session ends (lib/domains/events/live-channel.ts).
 */
export async function GET(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const m = await currentMember();
    if (!m) throw new AppError("unauthorized", "Sign in to follow live changes.");
    const stream = await openLiveChannel(req, { memberId: m.member.id, workspaceId: m.workspace.id, sessionToken: await currentSessionToken() });
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store, no-transform", "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
}
