import { formEndpoint, preflight } from "@/lib/domains/oauth/endpoint";
import { revokeToken } from "@/lib/domains/oauth/revoke-token";

// POST /api/oauth/revoke — RFC 7009 token revocation (always 200)
export const POST = formEndpoint(async (form) => {
  await revokeToken(form);
  return null;
});
export const OPTIONS = preflight;
