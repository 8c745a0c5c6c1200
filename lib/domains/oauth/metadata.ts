import { API_KEY_SCOPES } from "../../../db/schema";
import { publicOrigin } from "../../platform/config/public-url";

/** The MCP server's resource identifier (RFC 8707): every token is issued for it alone. */
export const mcpResource = (): string => `${publicOrigin()}/api/mcp`;

/** Where a client finds the resource's metadata: RFC 9728's path-inserted well-known URL. */
export const resourceMetadataUrl = (): string => `${publicOrigin()}/.well-known/oauth-protected-resource/api/mcp`;

/** The scopes a person can grant: the API key scopes (SPEC §3). */
export const OAUTH_SCOPES: readonly string[] = API_KEY_SCOPES;

/** RFC 9728 Protected Resource Metadata for /api/mcp. */
export function protectedResourceMetadata() {
  return {
    resource: mcpResource(),
    authorization_servers: [publicOrigin()],
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "AgentDraft MCP server",
    resource_documentation: `${publicOrigin()}/docs/mcp`,
  };
}

/** RFC 8414 Authorization Server Metadata: public clients with PKCE (S256), by registration or metadata document. */
export function authorizationServerMetadata() {
  const origin = publicOrigin();
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/api/oauth/token`,
    registration_endpoint: `${origin}/api/oauth/register`,
    revocation_endpoint: `${origin}/api/oauth/revoke`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
