import { checkHealth } from "@/lib/composition/health/check-health";
import { healthViewer } from "@/lib/composition/health/health-viewer";
import { problemResponse } from "@/lib/platform/api/problem";
import { newRequestId } from "@/lib/platform/api/request-ids";
import { AppError } from "@/lib/platform/errors";

export const dynamic = "force-dynamic";

// GET /api/health — ok / degraded / down for anyone; with an API key (any scope) or a signed-in
// member, the database's state and how far their workspace's background work is behind.
export async function GET(req: Request) {
  const requestId = newRequestId();
  let details: Awaited<ReturnType<typeof healthViewer>> = null;
  try {
    details = await healthViewer(req);
  } catch (err) {
    // A wrong key is 401 as anywhere; a key that cannot be checked (database down) gets the public answer.
    if (err instanceof AppError) return problemResponse(err, requestId, { "x-request-id": requestId });
  }
  const health = await checkHealth({ details });
  return Response.json(health, {
    status: health.status === "down" ? 503 : 200,
    headers: { "cache-control": "no-store", "x-request-id": requestId },
  });
}
