import { samlMetadataResponse } from "@/lib/domains/sso/responses";
import { gatedRoute } from "@/lib/platform/api/startup-gated";

// GET /sso/saml/{workspace}/metadata — AgentDraft's SAML service provider metadata for this workspace (docs/sso.md)
export const GET = gatedRoute(async (_req: Request, ctx: { params: Promise<{ workspace: string }> }) => samlMetadataResponse((await ctx.params).workspace));
