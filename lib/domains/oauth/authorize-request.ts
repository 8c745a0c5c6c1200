import { eq } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { oauthClients, type OAuthClientRow } from "../../../db/schema";
import { publicOrigin } from "../../platform/config/public-url";
import { mcpResource, OAUTH_SCOPES } from "./metadata";
import { isMetadataDocumentUrl, resolveMetadataClient, type FetchOptions } from "./client-metadata-document";

/** An authorization request that passed every check: what the consent page shows and the code binds. */
export type AuthorizeParams = {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** What the client asked for; the person may grant fewer. */
  scopes: string[];
  resource: string;
};

export type AuthorizeCheck =
  | { ok: true; client: OAuthClientRow; params: AuthorizeParams }
  /** The client and redirect URI are known: the error goes back to the client. */
  | { ok: false; redirect: string }
  /** The client or its redirect URI is not known: shown to the person, never redirected (no open redirect). */
  | { ok: false; problem: string };

const SINGLE = ["client_id", "redirect_uri", "response_type", "state", "code_challenge", "code_challenge_method", "scope", "resource"];
const MAX_STATE = 1000;

/** `redirect_uri` with an authorization error (RFC 6749 §4.1.2.1) and the issuer (RFC 9207). */
export function errorRedirect(redirectUri: string, error: string, description: string, state: string | null): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state !== null) url.searchParams.set("state", state);
  url.searchParams.set("iss", publicOrigin());
  return url.toString();
}

/** The client a `client_id` names, registered here. */
export async function findClient(clientId: string): Promise<OAuthClientRow | null> {
  if (clientId.length > 2000) return null;
  const q = await queryable();
  const [row] = await q.select().from(oauthClients).where(eq(oauthClients.clientId, clientId));
  return row ?? null;
}

/**
 * Checks an authorization request (OAuth 2.1 §4.1.1, RFC 7636, RFC 8707) in the order that keeps
 * redirects safe: first the client and its exact redirect URI (an error there is shown, never
 * redirected), then everything else (an error there goes back to the client with its state).
 * PKCE with S256 and the resource (this MCP server) are required.
 */
export async function checkAuthorizeRequest(query: URLSearchParams, fetchOptions: FetchOptions = {}): Promise<AuthorizeCheck> {
  for (const name of SINGLE) {
    if (query.getAll(name).length > 1) return { ok: false, problem: `The request repeats the ${name} parameter.` };
  }
  const clientId = query.get("client_id");
  if (!clientId) return { ok: false, problem: "The request names no client (client_id is missing)." };
  let client: OAuthClientRow | null;
  if (isMetadataDocumentUrl(clientId)) {
    const resolved = await resolveMetadataClient(clientId, fetchOptions);
    if ("problem" in resolved) return { ok: false, problem: resolved.problem };
    client = resolved.client;
  } else client = await findClient(clientId);
  if (!client) return { ok: false, problem: "This client is not registered here. Ask the application to register again (its registration may have been removed)." };
  const asked = query.get("redirect_uri");
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : null);
  if (!redirectUri) return { ok: false, problem: "The request names no redirect_uri, and the client registered several." };
  if (!client.redirectUris.includes(redirectUri)) return { ok: false, problem: "The redirect_uri is not one this client registered (they are matched exactly)." };

  const state = query.get("state");
  const fail = (error: string, description: string): AuthorizeCheck => ({ ok: false, redirect: errorRedirect(redirectUri, error, description, state !== null && state.length <= MAX_STATE ? state : null) });
  if (state !== null && state.length > MAX_STATE) return fail("invalid_request", `state is longer than ${MAX_STATE} characters.`);
  if (query.get("response_type") !== "code") return fail("unsupported_response_type", 'Only response_type=code is supported.');
  const challenge = query.get("code_challenge");
  if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail("invalid_request", "PKCE is required: send code_challenge (the base64url SHA-256 of your code_verifier, 43 characters).");
  if (query.get("code_challenge_method") !== "S256") return fail("invalid_request", "code_challenge_method must be S256.");
  const resource = query.get("resource");
  if (!resource) return fail("invalid_target", `Send resource=${mcpResource()} (RFC 8707): tokens are issued for this MCP server only.`);
  if (resource !== mcpResource()) return fail("invalid_target", `Tokens are issued only for ${mcpResource()}, not ${resource}.`);
  const scope = query.get("scope");
  const scopes = scope ? [...new Set(scope.split(" ").filter(Boolean))] : [...OAUTH_SCOPES];
  const unknown = scopes.filter((s) => !OAUTH_SCOPES.includes(s));
  if (unknown.length > 0) return fail("invalid_scope", `Unknown scope ${unknown.join(", ")}; the scopes are ${OAUTH_SCOPES.join(", ")}.`);
  return { ok: true, client, params: { clientId, redirectUri, state, codeChallenge: challenge, scopes: scopes.sort(), resource } };
}
