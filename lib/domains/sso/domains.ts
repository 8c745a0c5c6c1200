import { randomBytes } from "node:crypto";
import { Resolver, resolveTxt } from "node:dns/promises";
import { domainToASCII } from "node:url";
import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import type { Transaction } from "../../../db/client";
import { isUniqueViolation } from "../../../db/errors";
import { ssoConnections, ssoDomains, type SsoConnectionRow, type SsoDomainRow } from "../../../db/schema";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { env } from "../../platform/config/env";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";

/** The most email domains one workspace's connection covers. */
export const MAX_SSO_DOMAINS = 20;
/** The DNS name whose TXT record proves the domain: `_agentdraft.<domain>`. */
export const verificationRecordName = (domain: string) => `_agentdraft.${domain}`;
export const verificationRecordValue = (token: string) => `agentdraft-verification=${token}`;

/** Resolves a name's TXT records (each a list of strings); tests pass their own. */
export type TxtResolver = (name: string) => Promise<string[][]>;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lower-case ASCII (punycode), no trailing dot; or a message saying why it is not a domain. */
export function normaliseSsoDomain(raw: string): { name: string } | { problem: string } {
  const trimmed = raw.trim().toLowerCase().replace(/^@/, "").replace(/\.$/, "");
  const name = /^[\x21-\x7e]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (!name || name.length < 3 || name.length > 253) return { problem: "a domain name is 3 to 253 characters, such as acme.com" };
  const labels = name.split(".");
  if (labels.length < 2) return { problem: "a domain has at least two labels, such as acme.com" };
  if (!labels.every((l) => LABEL.test(l))) return { problem: "labels are letters, digits and hyphens, not starting or ending with a hyphen" };
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return { problem: "an IP address is not a domain" };
  return { name };
}

export const addSsoDomainInput = z.object({ name: z.string().max(300, "at most 253 characters") });

const invalidDomain = (problem: string) => new AppError("validation_failed", `name: ${problem}`, { errors: [{ field: "name", message: problem }] });

/**
 * Adds an email domain to the workspace's connection, unverified, with the token of its TXT
 * record. A domain belongs to one workspace at most: the unique index decides racing claims
 * (`domain_taken`, 409, for every other). Audited. The caller checks the role (admin).
 */
export async function addSsoDomain(actor: Actor, input: z.input<typeof addSsoDomainInput>): Promise<SsoDomainRow> {
  const parsed = normaliseSsoDomain(addSsoDomainInput.parse(input).name);
  if ("problem" in parsed) throw invalidDomain(parsed.problem);
  try {
    return await transaction(async (tx) => {
      // The connection row serialises this workspace's additions, so the cap holds.
      const [connection] = await tx.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, actor.workspaceId)).for("no key update");
      if (!connection) throw new AppError("conflict", "Add the workspace's SSO connection (OpenID Connect or SAML) first, then the domains it covers.");
      const [{ count }] = (await tx.select({ count: sql<number>`count(*)::int` }).from(ssoDomains).where(eq(ssoDomains.connectionId, connection.id))) as [{ count: number }];
      if (count >= MAX_SSO_DOMAINS) throw new AppError("conflict", `A connection covers at most ${MAX_SSO_DOMAINS} domains: remove one you no longer use first.`);
      const [row] = await tx
        .insert(ssoDomains)
        .values({ id: newId("ssoDomain"), workspaceId: actor.workspaceId, connectionId: connection.id, name: parsed.name, verificationToken: randomBytes(24).toString("base64url") })
        .returning();
      await appendAudit(tx, [{ actor, action: "sso_domain.added", resource: { type: "sso_domain", id: row!.id }, summary: { name: parsed.name } }]);
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("domain_taken", `${parsed.name} is already covered by an SSO connection (this workspace's or another's). A domain signs in to one workspace.`);
    throw err;
  }
}

async function domainOf(tx: Transaction, actor: Actor, id: string): Promise<SsoDomainRow> {
  const [row] = await tx.select().from(ssoDomains).where(and(eq(ssoDomains.id, id), eq(ssoDomains.workspaceId, actor.workspaceId))).for("update");
  if (!row) throw notFound("SSO domain", id);
  return row;
}

/** The system's resolvers, or the loopback DNS server the operator named (SSO_DNS_SERVER, checked loopback-only at start). */
const systemTxt: TxtResolver = (name) => {
  const server = env().SSO_DNS_SERVER;
  if (!server) return resolveTxt(name);
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers([server]);
  return resolver.resolveTxt(name);
};

/**
 * Checks the domain's TXT record at `_agentdraft.<domain>` for `agentdraft-verification=<token>`
 * and marks it verified (audited once). Not found: `domain_not_verified` (409) saying what to add.
 */
export async function verifySsoDomain(actor: Actor, id: string, resolver: TxtResolver = systemTxt): Promise<SsoDomainRow> {
  const q = await queryable();
  const [current] = await q.select().from(ssoDomains).where(and(eq(ssoDomains.id, id), eq(ssoDomains.workspaceId, actor.workspaceId)));
  if (!current) throw notFound("SSO domain", id);
  if (current.verifiedAt) return current;
  const recordName = verificationRecordName(current.name);
  const expected = verificationRecordValue(current.verificationToken);
  let records: string[][] = [];
  try {
    records = await resolver(recordName);
  } catch {
    records = []; // NXDOMAIN, no TXT: the same answer to the admin
  }
  if (!records.some((chunks) => chunks.join("") === expected)) {
    throw new AppError("domain_not_verified", `No TXT record ${recordName} with the value ${expected} was found. Add it at your DNS host, wait for it to be published, and verify again.`);
  }
  return transaction(async (tx) => {
    const row = await domainOf(tx, actor, id);
    if (row.verifiedAt) return row;
    const [verified] = await tx.update(ssoDomains).set({ verifiedAt: new Date() }).where(eq(ssoDomains.id, id)).returning();
    await appendAudit(tx, [{ actor, action: "sso_domain.verified", resource: { type: "sso_domain", id }, summary: { name: row.name, record: recordName } }]);
    return verified!;
  });
}

/** Turns "require SSO" on or off for a verified domain (passkey sign-in is then refused for its emails). Audited when it changes. */
export async function setSsoRequired(actor: Actor, id: string, required: boolean): Promise<SsoDomainRow> {
  return transaction(async (tx) => {
    const row = await domainOf(tx, actor, id);
    if (required && !row.verifiedAt) throw new AppError("domain_not_verified", `Verify ${row.name} first: only a verified domain can require SSO.`);
    if (row.requireSso === required) return row;
    const [updated] = await tx.update(ssoDomains).set({ requireSso: required }).where(eq(ssoDomains.id, id)).returning();
    await appendAudit(tx, [{ actor, action: required ? "sso_domain.required" : "sso_domain.not_required", resource: { type: "sso_domain", id }, summary: { name: row.name } }]);
    return updated!;
  });
}

/** Removes a domain from the connection (it can then be claimed elsewhere). Audited. */
export async function removeSsoDomain(actor: Actor, id: string): Promise<void> {
  await transaction(async (tx) => {
    const row = await domainOf(tx, actor, id);
    await tx.delete(ssoDomains).where(eq(ssoDomains.id, id));
    await appendAudit(tx, [{ actor, action: "sso_domain.removed", resource: { type: "sso_domain", id }, summary: { name: row.name, was_verified: Boolean(row.verifiedAt) } }]);
  });
}

export async function listSsoDomains(workspaceId: string): Promise<SsoDomainRow[]> {
  const q = await queryable();
  return q.select().from(ssoDomains).where(eq(ssoDomains.workspaceId, workspaceId)).orderBy(asc(ssoDomains.name)).limit(MAX_SSO_DOMAINS);
}

/** The domain part of an email, normalised; null when it is not an email. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  if (at < 1 || email.length > 254) return null;
  const d = normaliseSsoDomain(email.slice(at + 1));
  return "name" in d ? d.name : null;
}

/** The verified domain of this email and its connection, or null: only verified domains route sign-ins. */
export async function ssoRouteForEmail(email: string): Promise<{ domain: SsoDomainRow; connection: SsoConnectionRow } | null> {
  const name = emailDomain(email);
  if (!name) return null;
  const q = await queryable();
  const [row] = await q
    .select({ domain: ssoDomains, connection: ssoConnections })
    .from(ssoDomains)
    .innerJoin(ssoConnections, eq(ssoConnections.id, ssoDomains.connectionId))
    .where(and(sql`lower(${ssoDomains.name}) = ${name}`, isNotNull(ssoDomains.verifiedAt)));
  return row ?? null;
}

/** Whether this email's domain requires SSO (passkey sign-in refused). */
export async function ssoRequiredForEmail(email: string): Promise<boolean> {
  const route = await ssoRouteForEmail(email);
  return Boolean(route?.domain.requireSso);
}
