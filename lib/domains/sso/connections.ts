import { X509Certificate } from "node:crypto";
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
import { discoverForSaving, type OidcClientSettings } from "./discovery";
import { fetchIdpMetadata, MAX_METADATA_CHARS, parseIdpMetadata, type IdpMetadata } from "./saml-metadata";

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

/** An OIDC connection's client, the secret in the clear (for the token request only). */
export function oidcSettingsOf(c: SsoConnectionRow): OidcClientSettings {
  if (c.protocol !== "oidc" || !c.clientId || !c.clientSecretSealed) throw new AppError("conflict", "This workspace's SSO connection is not an OpenID Connect connection.");
  return { issuer: c.issuer, clientId: c.clientId, clientSecret: open(c.clientSecretSealed) };
}

/** The columns a connection of the other protocol leaves empty. */
const NO_OIDC = { clientId: null, clientSecretSealed: null };
const NO_SAML = { samlSsoUrl: null, samlCertificates: null, samlMetadataUrl: null, samlAllowIdpInitiated: false };

/**
 * Creates or replaces the workspace's OIDC connection after checking it: the issuer's discovery
 * document must load (through the SSRF guard) and name that issuer. The secret is sealed at rest.
 * Audited (`sso_connection.created` / `.updated`), never with the secret. The caller checks the role (admin).
 */
export async function saveSsoConnection(actor: Actor, input: SaveSsoConnectionInput): Promise<SsoConnectionRow> {
  const data = saveSsoConnectionInput.parse(input);
  const existing = await getSsoConnection(actor.workspaceId);
  const secret = data.client_secret || (existing?.protocol === "oidc" ? oidcSettingsOf(existing).clientSecret : null);
  if (!secret) throw new AppError("validation_failed", "client_secret: enter the client secret your identity provider gave", { errors: [{ field: "client_secret", message: "required" }] });
  const config = await discoverForSaving({ issuer: data.issuer, clientId: data.client_id, clientSecret: secret });
  const issuer = config.serverMetadata().issuer;
  const values = { protocol: "oidc" as const, issuer, clientId: data.client_id, clientSecretSealed: seal(secret), justInTime: data.just_in_time, ...NO_SAML };
  return upsertConnection(actor, values, (before) => ({
    protocol: "oidc",
    issuer,
    client_id: data.client_id,
    secret_changed: !before || before.protocol !== "oidc" || Boolean(data.client_secret),
    just_in_time: data.just_in_time,
  }));
}

const metadataUrlField = z
  .string()
  .trim()
  .max(2000, "at most 2000 characters")
  .refine((v) => asUrl(v) !== null, "enter the metadata URL your identity provider shows")
  .refine((v) => {
    const u = asUrl(v);
    return !u || u.protocol === "https:" || (u.protocol === "http:" && insecureAllowed(u));
  }, "must be an https URL (plain http only for hosts on the operator's WEBHOOK_ALLOWED_HOSTS)");

export const saveSamlConnectionInput = z
  .object({
    /** The IdP's metadata XML, pasted; or */
    metadata_xml: z.string().max(MAX_METADATA_CHARS, `at most ${MAX_METADATA_CHARS} characters`).nullish(),
    /** the URL AgentDraft loads it from (through the SSRF guard). */
    metadata_url: metadataUrlField.nullish().or(z.literal("")),
    just_in_time: z.boolean().default(false),
    /** Accept responses no request of ours asked for (IdP-initiated sign-in). Off by default. */
    allow_idp_initiated: z.boolean().default(false),
  })
  .refine((v) => !(v.metadata_xml?.trim() && v.metadata_url), { message: "paste the identity provider's metadata XML or give its metadata URL (one of them)", path: ["metadata_xml"] });
export type SaveSamlConnectionInput = z.input<typeof saveSamlConnectionInput>;

/**
 * Creates or replaces the workspace's connection as SAML 2.0, from the IdP's metadata (pasted, or
 * loaded from its URL through the SSRF guard): its entity id, SSO URL and signing certificates.
 * Audited like OIDC's (`sso_connection.created` / `.updated`). The caller checks the role (admin).
 */
export async function saveSamlConnection(actor: Actor, input: SaveSamlConnectionInput): Promise<SsoConnectionRow> {
  const data = saveSamlConnectionInput.parse(input);
  const existing = await getSsoConnection(actor.workspaceId);
  const kept = existing?.protocol === "saml" ? existing : null;
  const metadataUrl = data.metadata_url || null;
  let idp: IdpMetadata;
  if (metadataUrl) idp = await fetchIdpMetadata(metadataUrl);
  else if (data.metadata_xml?.trim()) idp = await parseIdpMetadata(data.metadata_xml);
  // Editing the switches of a SAML connection keeps the IdP's metadata as stored.
  else if (kept) idp = { entityId: kept.issuer, ssoUrl: kept.samlSsoUrl!, certificates: kept.samlCertificates! };
  else throw new AppError("validation_failed", "metadata_xml: paste the identity provider's metadata XML or give its metadata URL (one of them)", { errors: [{ field: "metadata_xml", message: "required" }] });
  const values = {
    protocol: "saml" as const,
    issuer: idp.entityId,
    samlSsoUrl: idp.ssoUrl,
    samlCertificates: idp.certificates,
    samlMetadataUrl: metadataUrl ?? (data.metadata_xml?.trim() ? null : (kept?.samlMetadataUrl ?? null)),
    samlAllowIdpInitiated: data.allow_idp_initiated,
    justInTime: data.just_in_time,
    ...NO_OIDC,
  };
  const fingerprints = idp.certificates.map((pem) => new X509Certificate(pem).fingerprint256);
  return upsertConnection(actor, values, () => ({
    protocol: "saml",
    metadata_changed: Boolean(metadataUrl || data.metadata_xml?.trim()),
    issuer: idp.entityId,
    sso_url: idp.ssoUrl,
    metadata_url: values.samlMetadataUrl,
    certificates: fingerprints,
    just_in_time: data.just_in_time,
    allow_idp_initiated: data.allow_idp_initiated,
  }));
}

type ConnectionValues = Omit<typeof ssoConnections.$inferInsert, "id" | "workspaceId" | "createdAt" | "updatedAt">;

/** Inserts or replaces the workspace's one connection (either protocol) and audits the change, never a secret. */
async function upsertConnection(actor: Actor, values: ConnectionValues, summary: (before: SsoConnectionRow | undefined) => Record<string, unknown>): Promise<SsoConnectionRow> {
  try {
    return await transaction(async (tx) => {
      const [before] = await tx.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, actor.workspaceId)).for("update");
      const [row] = before
        ? await tx.update(ssoConnections).set({ ...values, updatedAt: new Date() }).where(eq(ssoConnections.id, before.id)).returning()
        : await tx.insert(ssoConnections).values({ id: newId("ssoConnection"), workspaceId: actor.workspaceId, ...values }).returning();
      const changed = before && before.protocol !== values.protocol ? { protocol_changed_from: before.protocol } : {};
      await appendAudit(tx, [
        {
          actor,
          action: before ? "sso_connection.updated" : "sso_connection.created",
          resource: { type: "sso_connection", id: row!.id },
          summary: { ...summary(before), ...changed },
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
    await appendAudit(tx, [{ actor, action: "sso_connection.deleted", resource: { type: "sso_connection", id: row.id }, summary: { protocol: row.protocol, issuer: row.issuer, domains: domains.map((d) => d.name) } }]);
  });
}
