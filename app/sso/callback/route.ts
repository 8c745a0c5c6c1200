import { ssoCallbackResponse } from "@/lib/domains/sso/responses";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// GET /sso/callback — the identity provider's redirect back: checks it and starts a session (docs/sso.md)
export const GET = gatedRoute((req: Request) => ssoCallbackResponse(req));
