import { createHash, randomBytes } from "node:crypto";

/** 32 random bytes, base64url: the secret part of an invitation link. */
export const newInvitationToken = () => randomBytes(32).toString("base64url");

export const hashInvitationToken = (token: string) => createHash("sha256").update(token).digest("hex");

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
