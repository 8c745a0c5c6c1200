import { protectedResourceMetadata } from "@/lib/domains/oauth/metadata";

// GET /.well-known/oauth-protected-resource/api/mcp — RFC 9728 metadata for /api/mcp (path inserted)
export const GET = () => Response.json(protectedResourceMetadata(), { headers: { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" } });
