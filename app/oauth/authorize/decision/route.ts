import { consentErrorPage, decideConsent, readConsentForm } from "@/lib/domains/oauth/consent-decision";
import { problemResponse } from "@/lib/platform/api/problem";
import { newRequestId } from "@/lib/platform/api/request-ids";

// POST /oauth/authorize/decision — the consent form: 303 to the client with a code (or access_denied)
export async function POST(req: Request): Promise<Response> {
  let form = "";
  try {
    form = await readConsentForm(req);
    return new Response(null, { status: 303, headers: { location: await decideConsent(req.headers, form), "cache-control": "no-store" } });
  } catch (err) {
    // A browser's form post goes back to the consent page, which says what went wrong.
    const back = (req.headers.get("accept") ?? "").includes("text/html") ? consentErrorPage(form, err) : null;
    return back ? new Response(null, { status: 303, headers: { location: back } }) : problemResponse(err, newRequestId());
  }
}
