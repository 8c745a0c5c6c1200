import { protectedResourceMetadata } from "@/lib/domains/oauth/metadata";

// GET /.well-known/oauth-protected-resource — RFC 9728 metadata of the MCP server
export const GET = () => Response.json(protectedResourceMetadata(), { headers: { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" } });
