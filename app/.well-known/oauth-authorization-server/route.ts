import { authorizationServerMetadata } from "@/lib/domains/oauth/metadata";

// GET /.well-known/oauth-authorization-server — RFC 8414 metadata
export const GET = () => Response.json(authorizationServerMetadata(), { headers: { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" } });
