import { eq } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { isUniqueViolation } from "../../../db/errors";
import { ssoConnections, ssoDomains, type SsoConnectionRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { open, seal } from "../../platform/crypto/secret-box";
import { AppError } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { insecureAllowed } from "../../platform/outbound/guarded-fetch";
import { discoverForSaving } from "./discovery";

const asUrl = (v: string): URL | null => {
  try {
    return new URL(v);
  } catch {
    return null;
  }
};

const issuerField = z
  .string()
  .trim()
  .max(500, "at most 500 characters")
  .refine((v) => asUrl(v) !== null, "enter the issuer URL, such as https://acme.okta.com")
  .refine((v) => {
    const u = asUrl(v);
    return !u || u.protocol === "https:" || (u.protocol === "http:" && insecureAllowed(u));
  }, "must be an https URL (plain http only for hosts on the operator's WEBHOOK_ALLOWED_HOSTS)")
  .refine((v) => {
    const u = asUrl(v);
    return !u || (!u.search && !u.hash && !u.username && !u.password);
  }, "an issuer has no query, fragment or credentials");

export const saveSsoConnectionInput = z.object({
  issuer: issuerField,
  client_id: z.string().trim().min(1, "enter the client id").max(500, "at most 500 characters"),
  /** Required when creating; left out (or blank) when editing, the stored one is kept. */
  client_secret: z.string().trim().max(2000, "at most 2000 characters").nullish(),
  just_in_time: z.boolean().default(false),
});
export type SaveSsoConnectionInput = z.input<typeof saveSsoConnectionInput>;

export async function getSsoConnection(workspaceId: string): Promise<SsoConnectionRow | null> {
  const q = await queryable();
  const [row] = await q.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, workspaceId));
  return row ?? null;
}

/** The client secret in the clear, for the token request only. */
export const clientSecretOf = (c: SsoConnectionRow) => open(c.clientSecretSealed);

/**
 * Creates or replaces the workspace's OIDC connection after checking it: the issuer's discovery
 * document must load (through the SSRF guard) and name that issuer. The secret is sealed at rest.
 * Audited (`sso_connection.created` / `.updated`), never with the secret. The caller checks the role (admin).
 */
export async function saveSsoConnection(actor: Actor, input: SaveSsoConnectionInput): Promise<SsoConnectionRow> {
  const data = saveSsoConnectionInput.parse(input);
  const existing = await getSsoConnection(actor.workspaceId);
  const secret = data.client_secret || (existing ? clientSecretOf(existing) : null);
  if (!secret) throw new AppError("validation_failed", "client_secret: enter the client secret your identity provider gave", { errors: [{ field: "client_secret", message: "required" }] });
  const config = await discoverForSaving({ issuer: data.issuer, clientId: data.client_id, clientSecret: secret });
  const issuer = config.serverMetadata().issuer;
  const values = { issuer, clientId: data.client_id, clientSecretSealed: seal(secret), justInTime: data.just_in_time };
  try {
    return await transaction(async (tx) => {
      const [before] = await tx.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, actor.workspaceId)).for("update");
      const [row] = before
        ? await tx.update(ssoConnections).set({ ...values, updatedAt: new Date() }).where(eq(ssoConnections.id, before.id)).returning()
        : await tx.insert(ssoConnections).values({ id: newId("ssoConnection"), workspaceId: actor.workspaceId, ...values }).returning();
      await appendAudit(tx, [
        {
          actor,
          action: before ? "sso_connection.updated" : "sso_connection.created",
          resource: { type: "sso_connection", id: row!.id },
          summary: { issuer, client_id: data.client_id, secret_changed: !before || Boolean(data.client_secret), just_in_time: data.just_in_time },
        },
      ]);
      return row!;
    });
  } catch (err) {
    // Two admins creating at once: the unique index lets one in; the other is told to reload.
    if (isUniqueViolation(err)) throw new AppError("conflict", "This workspace's SSO connection was created meanwhile: reload the page and edit it.");
    throw err;
  }
}

/** Removes the connection and its domains (sign-in by SSO ends for them; passkeys work again). Audited. */
export async function deleteSsoConnection(actor: Actor): Promise<void> {
  await transaction(async (tx) => {
    const [row] = await tx.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, actor.workspaceId)).for("update");
    if (!row) throw new AppError("not_found", "This workspace has no SSO connection.");
    const domains = await tx.delete(ssoDomains).where(eq(ssoDomains.connectionId, row.id)).returning({ name: ssoDomains.name });
    await tx.delete(ssoConnections).where(eq(ssoConnections.id, row.id));
    await appendAudit(tx, [{ actor, action: "sso_connection.deleted", resource: { type: "sso_connection", id: row.id }, summary: { issuer: row.issuer, domains: domains.map((d) => d.name) } }]);
  });
}
