import { and, eq, lt } from "drizzle-orm";
import { hash as sha256 } from "node:crypto";
import type { Transaction } from "../../../db/client";
import { oauthTokens } from "../../../db/schema";
import { ACCESS_TOKEN_TTL_SECONDS, newToken, REFRESH_TOKEN_TTL_SECONDS } from "./token-material";

export type TokenResponse = { access_token: string; token_type: "Bearer"; expires_in: number; refresh_token: string; scope: string };

/** A new access token and refresh token for a grant (its key), and the grant's expired tokens cleared. */
export async function issueTokens(tx: Transaction, apiKeyId: string, scopes: string[] | null): Promise<TokenResponse> {
  const access = newToken("access");
  const refresh = newToken("refresh");
  const now = Date.now();
  await tx.delete(oauthTokens).where(and(eq(oauthTokens.apiKeyId, apiKeyId), lt(oauthTokens.expiresAt, new Date(now))));
  await tx.insert(oauthTokens).values([
    { hash: access.hash, apiKeyId, kind: "access", expiresAt: new Date(now + ACCESS_TOKEN_TTL_SECONDS * 1000) },
    { hash: refresh.hash, apiKeyId, kind: "refresh", expiresAt: new Date(now + REFRESH_TOKEN_TTL_SECONDS * 1000) },
  ]);
  return { access_token: access.token, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refresh.token, scope: (scopes ?? []).join(" ") };
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return sha256("sha256", verifier, "base64url") === challenge;
}
