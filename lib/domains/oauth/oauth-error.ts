/** The error codes RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 and RFC 7009 define, with their status. */
const STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  unsupported_token_type: 400,
  access_denied: 403,
  temporarily_unavailable: 429,
} as const;

export type OAuthErrorCode = keyof typeof STATUS;

/** An OAuth protocol error: answered as `{ error, error_description }`, never as a problem document. */
export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
  get status(): number {
    return STATUS[this.error];
  }
}

/** Token, registration and revocation answers: JSON, never cached, readable from a browser-based client. */
export const OAUTH_HEADERS = { "cache-control": "no-store", pragma: "no-cache", "access-control-allow-origin": "*" } as const;

export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...OAUTH_HEADERS, ...headers } });
}

/** What an OAuth endpoint answers for an error it throws; anything else is a 500 with no detail. */
export function oauthErrorResponse(err: unknown): Response {
  if (err instanceof OAuthError) return oauthJson({ error: err.error, error_description: err.description }, err.status, err.headers);
  console.error("oauth endpoint failed", err);
  return oauthJson({ error: "server_error", error_description: "The server failed; try again." }, 500);
}
