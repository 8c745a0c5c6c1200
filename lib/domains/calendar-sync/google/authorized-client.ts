import type { OAuth2Client } from "google-auth-library";
import type { GoogleConnectionRow } from "../../../../db/schema";
import { AppError } from "../../../platform/errors";
import { open } from "../../../platform/crypto/secret-box";
import { newOAuthClient } from "./oauth-client";
import { googleFailure } from "./quota";

// One OAuth client per connection and sealed token, so access tokens are reused until they expire.
const clients = new Map<string, { sealed: string; client: OAuth2Client }>();
export const forgetClient = (connectionId: string) => clients.delete(connectionId);

/** An OAuth client acting as the connection's Google account (refreshing its access token as needed). */
export function authorizedClient(connection: GoogleConnectionRow): OAuth2Client {
  if (connection.status === "revoked" || !connection.refreshTokenSealed) {
    throw new AppError("conflict", `Google connection ${connection.id} is disconnected.`);
  }
  const cached = clients.get(connection.id);
  if (cached?.sealed === connection.refreshTokenSealed) return cached.client;
  const client = newOAuthClient();
  client.setCredentials({ refresh_token: open(connection.refreshTokenSealed) });
  clients.set(connection.id, { sealed: connection.refreshTokenSealed, client });
  return client;
}

/** Google refused the refresh token (revoked at Google, or expired): the connection needs a reconnect. */
export function isRevokedGrant(err: unknown): boolean {
  const f = googleFailure(err);
  return f.status === 400 && f.reason === "invalid_grant";
}
