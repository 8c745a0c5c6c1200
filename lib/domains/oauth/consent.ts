import { transaction } from "../../../db/transaction";
import { apiKeys, oauthCodes, type MemberRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { publicOrigin } from "../../platform/config/public-url";
import { findAgent } from "../agents";
import { appendAudit } from "../../platform/audit/append-audit";
import { generateKey } from "../../platform/api/key-material";
import { hasRole } from "../members";
import { memberActor } from "../members";
import { assertRecentlyAuthenticated } from "../passkeys";
import { checkAuthorizeRequest, errorRedirect } from "./authorize-request";
import { CODE_TTL_SECONDS, newToken } from "./token-material";

/** Connecting a client gives it an agent's credentials: the same role that creates API keys. */
export const CONSENT_ROLE = "admin" as const;

export type ConsentChoice = { agentId: string; scopes: string[] };

/**
 * A person consents: the request is checked again from its original query (nothing the form
 * carries but the person's choice is trusted), the person must have confirmed a passkey on this
 * session in the last minutes, and the agent must be of their workspace. The grant is an
 * agent-bound key (never shown) with the chosen scopes, audited as the member's act; the code
 * (single use, a minute) goes back to the client's exact redirect URI with its state.
 */
export async function grantConsent(
  member: MemberRow & { userId: string | null },
  sessionToken: string | undefined,
  query: URLSearchParams,
  choice: ConsentChoice,
): Promise<string> {
  const checked = await checkAuthorizeRequest(query);
  if (!checked.ok) {
    if ("redirect" in checked) return checked.redirect;
    throw new AppError("invalid_request", checked.problem);
  }
  const { client, params } = checked;
  if (!hasRole(member.role, CONSENT_ROLE)) throw new AppError("forbidden", "Only admins and owners can connect an application to an agent.");
  await assertRecentlyAuthenticated(member.userId ?? "", sessionToken);
  const scopes = [...new Set(choice.scopes)].sort();
  if (scopes.length === 0) throw new AppError("validation_failed", "Choose at least one permission to grant.");
  const extra = scopes.filter((s) => !params.scopes.includes(s));
  if (extra.length > 0) throw new AppError("validation_failed", `The application did not ask for ${extra.join(", ")}.`);
  const agent = await findAgent(member.workspaceId, choice.agentId);
  const code = newToken("code");
  await transaction(async (tx) => {
    const grant = generateKey("live");
    const keyId = newId("apiKey");
    await tx.insert(apiKeys).values({
      id: keyId,
      workspaceId: member.workspaceId,
      agentId: agent.id,
      name: client.name,
      mode: "live",
      prefix: `oauth:${client.clientId.slice(0, 12)}`,
      hash: grant.hash,
      scopes,
      oauthClientId: client.id,
    });
    await tx.insert(oauthCodes).values({
      hash: code.hash,
      clientId: client.id,
      workspaceId: member.workspaceId,
      agentId: agent.id,
      userId: member.userId ?? "",
      scopes,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      resource: params.resource,
      expiresAt: new Date(Date.now() + CODE_TTL_SECONDS * 1000),
      apiKeyId: keyId,
    });
    await appendAudit(tx, [
      {
        actor: memberActor(member),
        action: "oauth.client_connected",
        resource: { type: "api_key", id: keyId },
        agentId: agent.id,
        summary: { client_id: client.clientId, client_name: client.name, redirect_uri: params.redirectUri, scopes, passkey_confirmed: true },
      },
    ]);
  });
  const url = new URL(params.redirectUri);
  url.searchParams.set("code", code.token);
  if (params.state !== null) url.searchParams.set("state", params.state);
  url.searchParams.set("iss", publicOrigin());
  return url.toString();
}

/** The person said no: the client hears access_denied, with its state. */
export async function denyConsent(query: URLSearchParams): Promise<string> {
  const checked = await checkAuthorizeRequest(query);
  if (!checked.ok) {
    if ("redirect" in checked) return checked.redirect;
    throw new AppError("invalid_request", checked.problem);
  }
  return errorRedirect(checked.params.redirectUri, "access_denied", "The person declined.", checked.params.state);
}
