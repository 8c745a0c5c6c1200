import { and, eq } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { apiKeys, oauthTokens } from "../../../db/schema";
import { hashKey } from "../../platform/api/key-material";
import { findClient } from "./authorize-request";
import { revokeGrant } from "./token-endpoint";
import { looksLikeToken } from "./token-material";

/**
 * RFC 7009 revocation: an access token ends alone; a refresh token ends the whole grant. The
 * answer is the same whether or not the token was known or the client's (§2.2), so it tells
 * a prober nothing.
 */
export async function revokeToken(form: URLSearchParams): Promise<void> {
  const token = form.get("token");
  const client = await findClient(form.get("client_id") ?? "");
  if (!token || !client) return;
  const kind = looksLikeToken("access", token) ? "access" : looksLikeToken("refresh", token) ? "refresh" : null;
  if (!kind) return;
  await transaction(async (tx) => {
    const [row] = await tx
      .select({ apiKeyId: oauthTokens.apiKeyId, clientId: apiKeys.oauthClientId })
      .from(oauthTokens)
      .innerJoin(apiKeys, eq(apiKeys.id, oauthTokens.apiKeyId))
      .where(and(eq(oauthTokens.hash, hashKey(token)), eq(oauthTokens.kind, kind)));
    if (!row || row.clientId !== client.id) return;
    if (kind === "access") await tx.delete(oauthTokens).where(eq(oauthTokens.hash, hashKey(token)));
    else await revokeGrant(tx, row.apiKeyId, "oauth.token_revoked");
  });
}
