import { decideConsent } from "@/lib/oauth/consent-decision";
import { problemResponse } from "@/lib/api/problem";
import { newRequestId } from "@/lib/api/request-ids";

// POST /oauth/authorize/decision — the consent form: 303 to the client with a code (or access_denied)
export async function POST(req: Request): Promise<Response> {
  try {
    return new Response(null, { status: 303, headers: { location: await decideConsent(req), "cache-control": "no-store" } });
  } catch (err) {
    return problemResponse(err, newRequestId());
  }
}
