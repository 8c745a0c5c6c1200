import { acceptGraphNotifications } from "@/lib/microsoft/notifications";
import { problemResponse } from "@/lib/api/problem";
import { newRequestId } from "@/lib/api/request-ids";
import { parseJsonBody, readBody } from "@/lib/api/read-body";
import { gatedRoute } from "@/lib/api/startup-gated";

// POST /api/microsoft/notifications — Microsoft Graph change and lifecycle notifications (subscriptions)
export const POST = gatedRoute(async (req: Request) => {
  const requestId = newRequestId();
  // The validation handshake: Graph checks the URL by posting ?validationToken=..., to be echoed as text/plain within 10 s.
  const validationToken = new URL(req.url).searchParams.get("validationToken");
  if (validationToken !== null) {
    return new Response(validationToken, { status: 200, headers: { "content-type": "text/plain; charset=utf-8", "x-request-id": requestId } });
  }
  try {
    const result = await acceptGraphNotifications(parseJsonBody(await readBody(req, 1_000_000), req.headers.get("content-type")));
    // 202: Graph only needs to know it arrived; the sync runs as its own job.
    return Response.json({ received: true, ...result }, { status: 202, headers: { "x-request-id": requestId } });
  } catch (err) {
    return problemResponse(err, requestId, { "x-request-id": requestId });
  }
});
