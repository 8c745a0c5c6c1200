import { and, eq, isNull, sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { apiKeys, oauthCodes, oauthTokens, type OAuthClientRow } from "../../../db/schema";
import type { Transaction } from "../../../db/client";
import { hashKey } from "../../platform/api/key-material";
import { appendAudit } from "../../platform/audit/append-audit";
import { findClient } from "./authorize-request";
import { issueTokens, pkceMatches, type TokenResponse } from "./issue-tokens";
import { mcpResource } from "./metadata";
import { OAuthError } from "./oauth-error";
import { looksLikeToken } from "./token-material";

const SINGLE = ["grant_type", "code", "redirect_uri", "client_id", "code_verifier", "refresh_token", "resource", "scope"];

/** The token endpoint (OAuth 2.1 §3.2): the code grant with PKCE, and refresh with rotation. */
export async function tokenRequest(form: URLSearchParams): Promise<TokenResponse> {
  for (const name of SINGLE) {
    if (form.getAll(name).length > 1) throw new OAuthError("invalid_request", `The request repeats ${name}.`);
  }
  const client = await publicClient(form.get("client_id"));
  const resource = form.get("resource");
  if (resource !== null && resource !== mcpResource()) throw new OAuthError("invalid_target", `Tokens are issued only for ${mcpResource()}.`);
  switch (form.get("grant_type")) {
    case "authorization_code":
      return exchangeCode(client, form);
    case "refresh_token":
      return refresh(client, form);
    case null:
      throw new OAuthError("invalid_request", "grant_type is missing.");
    default:
      throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
  }
}

/** Public clients identify themselves by client_id (no secret: PKCE and the one-time code protect the grant). */
async function publicClient(clientId: string | null): Promise<OAuthClientRow> {
  if (!clientId) throw new OAuthError("invalid_request", "client_id is missing.");
  const client = await findClient(clientId);
  if (!client) throw new OAuthError("invalid_client", "This client is not registered here; register again.");
  return client;
}

/**
 * Spends a code once. The spend is one conditional update; a code already spent is a replay
 * (RFC 6749 §4.1.2): the grant it gave is revoked. A code spent with the wrong verifier, client,
 * redirect URI or resource is spent all the same (no second guess).
 */
async function exchangeCode(client: OAuthClientRow, form: URLSearchParams): Promise<TokenResponse> {
  const code = form.get("code");
  const verifier = form.get("code_verifier");
  if (!code || !looksLikeToken("code", code)) throw new OAuthError("invalid_grant", "The code is not valid.");
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) throw new OAuthError("invalid_request", "code_verifier is missing or malformed (43–128 unreserved characters).");
  const outcome = await transaction(async (tx) => {
    const [spent] = await tx
      .update(oauthCodes)
      .set({ usedAt: sql`now()` })
      .where(and(eq(oauthCodes.hash, hashKey(code)), isNull(oauthCodes.usedAt)))
      .returning();
    if (!spent) {
      const [replayed] = await tx.select().from(oauthCodes).where(eq(oauthCodes.hash, hashKey(code)));
      if (replayed?.apiKeyId) await revokeGrant(tx, replayed.apiKeyId, "oauth.code_replayed");
      return { error: replayed ? "This code was already used; the access it gave is revoked." : "The code is not valid." };
    }
    if (spent.expiresAt.getTime() <= Date.now()) return { error: "The code has expired; authorize again." };
    if (spent.clientId !== client.id) return { error: "The code was issued to another client." };
    if (form.get("redirect_uri") !== spent.redirectUri) return { error: "redirect_uri differs from the authorization request's." };
    if (!pkceMatches(verifier, spent.codeChallenge)) return { error: "code_verifier does not match the code_challenge." };
    const [key] = await tx.select().from(apiKeys).where(eq(apiKeys.id, spent.apiKeyId!));
    if (!key || key.revokedAt) return { error: "The grant was revoked." };
    return { tokens: await issueTokens(tx, key.id, key.scopes) };
  });
  if ("error" in outcome) throw new OAuthError("invalid_grant", outcome.error!);
  return outcome.tokens;
}

/**
 * Rotates a refresh token: the presented one is used once (a conditional update) and a new
 * pair is issued. A refresh token presented again means two parties hold it: the whole grant
 * is revoked (OAuth 2.1 §4.3.1), and both must go through consent again.
 */
async function refresh(client: OAuthClientRow, form: URLSearchParams): Promise<TokenResponse> {
  const token = form.get("refresh_token");
  if (!token || !looksLikeToken("refresh", token)) throw new OAuthError("invalid_grant", "The refresh token is not valid.");
  const outcome = await transaction(async (tx) => {
    const [used] = await tx
      .update(oauthTokens)
      .set({ usedAt: sql`now()` })
      .where(and(eq(oauthTokens.hash, hashKey(token)), eq(oauthTokens.kind, "refresh"), isNull(oauthTokens.usedAt)))
      .returning();
    if (!used) {
      const [again] = await tx.select().from(oauthTokens).where(and(eq(oauthTokens.hash, hashKey(token)), eq(oauthTokens.kind, "refresh")));
      if (again) await revokeGrant(tx, again.apiKeyId, "oauth.refresh_token_reused");
      return { error: again ? "This refresh token was already used; the grant is revoked. Authorize again." : "The refresh token is not valid." };
    }
    if (used.expiresAt.getTime() <= Date.now()) return { error: "The refresh token has expired; authorize again." };
    const [key] = await tx.select().from(apiKeys).where(eq(apiKeys.id, used.apiKeyId));
    if (!key || key.revokedAt) return { error: "The grant was revoked; authorize again." };
    if (key.oauthClientId !== client.id) return { error: "The refresh token was issued to another client." };
    const scope = form.get("scope");
    if (scope && scope.split(" ").some((s) => s && !(key.scopes ?? []).includes(s))) return { scopeError: "A refresh cannot widen the grant's scopes." };
    return { tokens: await issueTokens(tx, key.id, key.scopes) };
  });
  if ("scopeError" in outcome) throw new OAuthError("invalid_scope", outcome.scopeError!);
  if ("error" in outcome) throw new OAuthError("invalid_grant", outcome.error!);
  return outcome.tokens;
}

/** Ends a grant: its key is revoked (its tokens with it: the door refuses a revoked key), audited as the system's act. */
export async function revokeGrant(tx: Transaction, apiKeyId: string, action: "oauth.code_replayed" | "oauth.refresh_token_reused" | "oauth.token_revoked"): Promise<void> {
  const [key] = await tx.update(apiKeys).set({ revokedAt: sql`now()` }).where(and(eq(apiKeys.id, apiKeyId), isNull(apiKeys.revokedAt))).returning();
  if (!key) return;
  await tx.delete(oauthTokens).where(eq(oauthTokens.apiKeyId, apiKeyId));
  await appendAudit(tx, [
    { actor: { type: "system", workspaceId: key.workspaceId, job: "oauth" }, action, resource: { type: "api_key", id: key.id }, agentId: key.agentId, summary: { client_name: key.name } },
  ]);
}
