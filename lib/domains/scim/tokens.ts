import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { scimTokens, workspaces, type ScimTokenRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { actorId, appendAudit } from "../../platform/audit/append-audit";
import { hashKey } from "../../platform/api/key-material";
import { newId } from "../../platform/ids";
import { notFound } from "../../platform/errors";
import { scimError } from "./errors";

const TOKEN_SHAPE = /^ad_scim_[A-Za-z0-9_-]{43}$/;
/** The most live tokens a workspace holds (one per identity provider, and one while rotating). */
export const MAX_LIVE_SCIM_TOKENS = 5;

export const createScimTokenInput = z.object({ name: z.string().trim().max(100).nullish() });

/** The actor a SCIM request acts as, in the audit trail: the token's identity provider. */
export type ScimActor = Actor & { type: "system" };

/**
 * Creates a SCIM token for the identity provider and returns it in the clear this once; only
 * its SHA-256 is stored (256 random bits, so an unsalted hash is a safe lookup key, as for API keys).
 * The caller checks the role (admin): the web app's action and the CLI do.
 */
export async function createScimToken(actor: Actor, input: z.input<typeof createScimTokenInput>): Promise<{ row: ScimTokenRow; token: string }> {
  const { name } = createScimTokenInput.parse(input);
  const token = `ad_scim_${randomBytes(32).toString("base64url")}`;
  const prefix = token.slice(0, "ad_scim_".length + 8);
  const row = await transaction(async (tx) => {
    // The workspace row serialises concurrent creations, so the cap holds.
    await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, actor.workspaceId)).for("no key update");
    const live = await tx.select({ id: scimTokens.id }).from(scimTokens).where(and(eq(scimTokens.workspaceId, actor.workspaceId), isNull(scimTokens.revokedAt)));
    if (live.length >= MAX_LIVE_SCIM_TOKENS) {
      throw scimError(409, null, `This workspace already has ${MAX_LIVE_SCIM_TOKENS} SCIM tokens: revoke one you no longer use first.`);
    }
    const [inserted] = await tx
      .insert(scimTokens)
      .values({ id: newId("scimToken"), workspaceId: actor.workspaceId, name: name ?? null, prefix, hash: hashKey(token), createdBy: actor.type === "operator" ? `operator:${actor.name}` : actorId(actor) })
      .returning();
    await appendAudit(tx, [{ actor, action: "scim_token.created", resource: { type: "scim_token", id: inserted!.id }, summary: { prefix, name: name ?? null } }]);
    return inserted!;
  });
  return { row, token };
}

/** Revokes a token of the actor's workspace; the identity provider's next request is refused. Revoking twice records nothing more. */
export async function revokeScimToken(actor: Actor, tokenId: string): Promise<ScimTokenRow> {
  return transaction(async (tx) => {
    const [row] = await tx.select().from(scimTokens).where(and(eq(scimTokens.id, tokenId), eq(scimTokens.workspaceId, actor.workspaceId))).for("update");
    if (!row) throw notFound("SCIM token", tokenId);
    if (row.revokedAt) return row;
    const [revoked] = await tx.update(scimTokens).set({ revokedAt: new Date() }).where(eq(scimTokens.id, tokenId)).returning();
    await appendAudit(tx, [{ actor, action: "scim_token.revoked", resource: { type: "scim_token", id: tokenId }, summary: { prefix: row.prefix } }]);
    return revoked!;
  });
}

export async function listScimTokens(workspaceId: string): Promise<ScimTokenRow[]> {
  const q = await queryable();
  return q.select().from(scimTokens).where(eq(scimTokens.workspaceId, workspaceId)).orderBy(desc(scimTokens.createdAt), desc(scimTokens.id)).limit(100);
}

/**
 * The workspace and actor of a request's `Authorization: Bearer ad_scim_…`, or 401. Marks the
 * token used (at most once a minute, so an identity provider's bursts do not all write).
 */
export async function authenticateScimToken(authorization: string | null): Promise<ScimActor & { tokenId: string }> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!bearer || !TOKEN_SHAPE.test(bearer)) throw scimError(401, null, "Send the workspace's SCIM token as Authorization: Bearer ad_scim_… (create one under Settings → SCIM provisioning).");
  const q = await queryable();
  const [row] = await q.select().from(scimTokens).where(eq(scimTokens.hash, hashKey(bearer)));
  if (!row || row.revokedAt) throw scimError(401, null, "This SCIM token is not valid or was revoked: create a new one under Settings → SCIM provisioning.");
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await q.update(scimTokens).set({ lastUsedAt: sql`now()` as unknown as Date }).where(eq(scimTokens.id, row.id));
  }
  return { type: "system", workspaceId: row.workspaceId, job: `scim:${row.id}`, tokenId: row.id };
}

/** Never includes the token or its hash. */
export const serializeScimToken = (t: ScimTokenRow) => ({
  id: t.id,
  object: "scim_token" as const,
  name: t.name,
  prefix: t.prefix,
  created_at: t.createdAt.toISOString(),
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
  revoked_at: t.revokedAt?.toISOString() ?? null,
});
