import { samlAcsResponse } from "@/lib/domains/sso/responses";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// POST /sso/saml/{workspace}/acs — the SAML assertion consumer service: checks the IdP's response and starts a session (docs/sso.md)
export const POST = gatedRoute(async (req: Request, ctx: { params: Promise<{ workspace: string }> }) => samlAcsResponse(req, (await ctx.params).workspace));
