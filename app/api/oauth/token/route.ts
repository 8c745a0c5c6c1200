import { formEndpoint, preflight } from "@/lib/domains/oauth/endpoint";
import { tokenRequest } from "@/lib/domains/oauth/token-endpoint";

// POST /api/oauth/token — authorization code (PKCE S256) and refresh token grants
export const POST = formEndpoint(async (form) => ({ body: await tokenRequest(form) }));
export const OPTIONS = preflight;
