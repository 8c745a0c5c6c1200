import { safeNext } from "@/lib/domains/auth/safe-next";
import { ssoStartResponse } from "@/lib/domains/sso/responses";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// GET /sso/start?email=… — sign in with the identity provider of the email's verified domain (docs/sso.md)
export const GET = gatedRoute((req: Request) => ssoStartResponse(req, safeNext(new URL(req.url).searchParams.get("next"))));
