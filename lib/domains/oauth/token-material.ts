import { randomBytes } from "node:crypto";
import { hashKey } from "../../platform/api/key-material";

/** How long each credential lives. Access tokens are short; a refresh token is used once. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const CODE_TTL_SECONDS = 60;

const PREFIX = { access: "ad_at_", refresh: "ad_rt_", code: "ad_ac_" } as const;
export type TokenKind = keyof typeof PREFIX;

/** A new credential of `kind` (256 random bits after its prefix) and the hash it is stored by. */
export function newToken(kind: TokenKind): { token: string; hash: string } {
  const token = `${PREFIX[kind]}${randomBytes(32).toString("base64url")}`;
  return { token, hash: hashKey(token) };
}

/** Whether `value` has the shape of a credential of `kind` (checked before any query). */
export function looksLikeToken(kind: TokenKind, value: string): boolean {
  return value.length === PREFIX[kind].length + 43 && value.startsWith(PREFIX[kind]) && /^[A-Za-z0-9_-]+$/.test(value.slice(PREFIX[kind].length));
}
