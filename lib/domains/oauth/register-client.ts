import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { queryable } from "../../../db/transaction";
import { oauthClients, type OAuthClientRow } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { takeToken } from "../../platform/api/rate-limit";
import { OAuthError } from "./oauth-error";
import { checkRedirectUris, redirectOrigins } from "./redirect-uris";

/** Registration is unauthenticated: bounded per address and for the whole deployment. */
export const REGISTRATION_LIMITS = {
  perAddress: { rate: 10 / 3600, burst: 10 },
  deployment: { rate: 1, burst: 60 },
};
export const MAX_CLIENT_NAME = 100;

/** What a client may ask for; anything else is refused rather than silently granted. */
const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);

/** The registered metadata, as RFC 7591 §3.2.1 answers it. */
export function registrationResponse(row: OAuthClientRow) {
  const m = row.metadata as Record<string, unknown>;
  return {
    client_id: row.clientId,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUris,
    grant_types: m.grant_types,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...(m.client_uri ? { client_uri: m.client_uri } : {}),
    ...(m.logo_uri ? { logo_uri: m.logo_uri } : {}),
    ...(m.scope ? { scope: m.scope } : {}),
  };
}

/**
 * The client metadata a registration request or a metadata document carries, checked: RFC
 * 7591's fields (the MCP SDK's schema), redirect URIs by our rules, only the code flow, and a
 * public client (token_endpoint_auth_method "none": no secret is issued, PKCE protects the code).
 */
export function checkClientMetadata(body: unknown): { name: string; redirectUris: string[]; metadata: Record<string, unknown> } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new OAuthError("invalid_client_metadata", "The client metadata must be a JSON object.");
  const redirectUris = checkRedirectUris((body as { redirect_uris?: unknown }).redirect_uris);
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new OAuthError("invalid_client_metadata", `${first?.path.join(".") || "metadata"}: ${first?.message ?? "invalid"}.`);
  }
  const m = parsed.data;
  const grantTypes = m.grant_types ?? ["authorization_code", "refresh_token"];
  if (grantTypes.some((g) => !GRANT_TYPES.has(g))) throw new OAuthError("invalid_client_metadata", "grant_types may hold only authorization_code and refresh_token.");
  if (!grantTypes.includes("authorization_code")) throw new OAuthError("invalid_client_metadata", "grant_types must include authorization_code.");
  if (m.response_types && m.response_types.some((r) => r !== "code")) throw new OAuthError("invalid_client_metadata", 'response_types may hold only "code".');
  const name = (m.client_name ?? "").replace(/[\p{Cc}\p{Cf}]/gu, "").trim().slice(0, MAX_CLIENT_NAME) || "Unnamed client";
  return {
    name,
    redirectUris,
    metadata: { grant_types: grantTypes, client_uri: m.client_uri, logo_uri: m.logo_uri, scope: m.scope, software_id: m.software_id, software_version: m.software_version },
  };
}

/** RFC 7591 Dynamic Client Registration: rate limited, then one insert. */
export async function registerClient(body: unknown, address: string): Promise<OAuthClientRow> {
  const checked = checkClientMetadata(body);
  for (const [bucket, limits] of [[`oauth-register:${address}`, REGISTRATION_LIMITS.perAddress], ["oauth-register", REGISTRATION_LIMITS.deployment]] as const) {
    const taken = await takeToken(bucket, limits);
    if (!taken.allowed) {
      throw new OAuthError("temporarily_unavailable", `Too many client registrations; retry in ${taken.retryAfterSeconds} s.`, { "retry-after": String(taken.retryAfterSeconds) });
    }
  }
  const id = newId("oauthClient");
  const q = await queryable();
  const [row] = await q
    .insert(oauthClients)
    .values({ id, clientId: id, registration: "dynamic", name: checked.name, redirectUris: checked.redirectUris, origins: redirectOrigins(checked.redirectUris), metadata: checked.metadata })
    .returning();
  return row!;
}
