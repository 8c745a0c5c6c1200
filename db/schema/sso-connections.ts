import { sql } from "drizzle-orm";
import { boolean, check, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** How a connection signs people in. */
export const SSO_PROTOCOLS = ["oidc", "saml"] as const;
export type SsoProtocol = (typeof SSO_PROTOCOLS)[number];

/**
 * A workspace's identity provider (one per workspace), by OpenID Connect or SAML 2.0: people of
 * its verified domains sign in through it. The OIDC client secret is sealed
 * (lib/platform/crypto/secret-box.ts); SAML keeps the IdP's public signing certificates.
 */
export const ssoConnections = pgTable(
  "sso_connections",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    protocol: text("protocol", { enum: SSO_PROTOCOLS }).notNull().default("oidc"),
    /** OIDC: the issuer as its discovery document names it. SAML: the IdP's entity id. */
    issuer: text("issuer").notNull(),
    /** OIDC only. */
    clientId: text("client_id"),
    /** OIDC only. */
    clientSecretSealed: text("client_secret_sealed"),
    /** SAML: the IdP's SingleSignOnService (HTTP-Redirect binding) URL. */
    samlSsoUrl: text("saml_sso_url"),
    /** SAML: the IdP's signing certificates (PEM), any of which may sign assertions (a rollover lists two). */
    samlCertificates: text("saml_certificates").array(),
    /** SAML: where the metadata was fetched from, when the admin gave a URL (null: pasted XML). */
    samlMetadataUrl: text("saml_metadata_url"),
    /** SAML: whether a response no request of ours asked for (IdP-initiated) is accepted. Off by default. */
    samlAllowIdpInitiated: boolean("saml_allow_idp_initiated").notNull().default(false),
    /** Whether a person of a verified domain who is not a member yet joins as a viewer on first sign-in (else only members may sign in). */
    justInTime: boolean("just_in_time").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
  },
  (t) => [
    uniqueIndex("sso_connections_workspace_key").on(t.workspaceId),
    check(
      "sso_connections_protocol_fields",
      sql`(${t.protocol} = 'oidc' and ${t.clientId} is not null and ${t.clientSecretSealed} is not null) or (${t.protocol} = 'saml' and ${t.samlSsoUrl} is not null and cardinality(${t.samlCertificates}) > 0)`,
    ),
  ],
);

export type SsoConnectionRow = typeof ssoConnections.$inferSelect;
