import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { SAML, ValidateInResponseTo, type Profile } from "@node-saml/node-saml";
import { parseDomFromString } from "@node-saml/node-saml/lib/xml";
import { queryable } from "../../../db/transaction";
import { sameString } from "../../platform/crypto/same-string";
import { ssoConnections, ssoSamlAssertions, ssoSamlRequests, type SsoConnectionRow } from "../../../db/schema";
import { admitSsoPerson, type SsoSignedIn } from "./admit";
import { describeError } from "./discovery";
import { NAMEID_EMAIL, samlAcsUrl, samlEntityId } from "./saml-metadata";
import { SsoRefusal } from "./refusal";

/** An AuthnRequest must be answered within this long (as an OIDC sign-in). */
export const SAML_REQUEST_TTL_MS = 10 * 60_000;
/** How far apart our clock and the IdP's may be for NotBefore / NotOnOrAfter. */
export const SAML_CLOCK_SKEW_MS = 60_000;
/** Where an IdP-initiated sign-in lands (it carries no `next` of ours). */
const IDP_INITIATED_NEXT = "/overview";
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";
const EMAIL_ATTRIBUTES = ["email", "mail", "emailAddress", "Email", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"];
const NAME_ATTRIBUTES = ["displayName", "name", "http://schemas.microsoft.com/identity/claims/displayname"];

/**
 * node-saml as our service provider for this connection: assertions must be signed by one of the
 * IdP's certificates, for our entity id (audience), within their time window. InResponseTo is kept
 * and checked here, in the database (single use), not in node-saml's in-memory cache.
 */
function serviceProvider(connection: SsoConnectionRow, requestId?: string): SAML {
  return new SAML({
    issuer: samlEntityId(connection.workspaceId),
    callbackUrl: samlAcsUrl(connection.workspaceId),
    audience: samlEntityId(connection.workspaceId),
    entryPoint: connection.samlSsoUrl ?? undefined,
    idpCert: connection.samlCertificates ?? [],
    idpIssuer: connection.issuer,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    identifierFormat: NAMEID_EMAIL,
    // Entra ID refuses a requested "PasswordProtectedTransport" context to people who signed in otherwise (passkeys, MFA).
    disableRequestedAuthnContext: true,
    validateInResponseTo: ValidateInResponseTo.never,
    generateUniqueId: () => requestId ?? `_${randomBytes(20).toString("hex")}`,
  });
}

/**
 * The browser's half of a SAML sign-in under way: the AuthnRequest's id, httpOnly, only sent to
 * /sso/saml. SameSite=None (and so Secure): the IdP's form posts to the ACS from its own site.
 */
export const SAML_REQUEST_COOKIE = "agentdraft-saml-request";

/** Sends the person to the IdP with an AuthnRequest (HTTP-Redirect), its id kept server-side for the response and in the browser's cookie. */
export async function startSamlSignIn(connection: SsoConnectionRow, email: string, next: string): Promise<{ authorizationUrl: string; samlRequestId: string }> {
  const id = `_${randomBytes(20).toString("hex")}`;
  const q = await queryable();
  // Requests never answered are dropped here, a bounded few at a time.
  await q.execute(sql`delete from sso_saml_requests where id in (select id from sso_saml_requests where expires_at < now() limit 100)`);
  await q.insert(ssoSamlRequests).values({ id, connectionId: connection.id, email, next, expiresAt: new Date(Date.now() + SAML_REQUEST_TTL_MS) });
  const authorizationUrl = await serviceProvider(connection, id).getAuthorizeUrlAsync("", undefined, {});
  return { authorizationUrl, samlRequestId: id };
}

const failed = (why: string) => new SsoRefusal("failed", `The identity provider's answer was refused: ${why}.`);

const timeOf = (v: unknown): number | null => {
  const t = typeof v === "string" ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : t;
};

const firstString = (v: unknown): string | undefined => (typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined);

/** What the response says outside any signature: only used to find our request, then checked against the signed assertion. */
async function envelope(samlResponse: string): Promise<{ inResponseTo: string | null; destination: string | null }> {
  let doc: Document;
  try {
    doc = await parseDomFromString(Buffer.from(samlResponse, "base64").toString("utf8"));
  } catch (err) {
    throw failed(`not a SAML response (${describeError(err)})`);
  }
  const root = doc.documentElement;
  if (root?.localName !== "Response") throw failed("not a SAML Response");
  return { inResponseTo: root.getAttribute("InResponseTo") || null, destination: root.getAttribute("Destination") || null };
}

type XmlJs = { $?: Record<string, string>; _?: string } & { [child: string]: XmlJs[] | Record<string, string> | string | undefined };
const children = (node: XmlJs | undefined, name: string): XmlJs[] => (Array.isArray(node?.[name]) ? (node![name] as XmlJs[]) : []);

/**
 * The signed assertion's own checks that node-saml leaves to us: its issuer is the connection's
 * IdP; a bearer SubjectConfirmation names our ACS URL as Recipient, is within its time window, and
 * answers the request we sent (InResponseTo), or none for an allowed IdP-initiated sign-in.
 * Answers the assertion's ID and until when it could be accepted (for the replay list).
 */
function checkAssertion(profile: Profile, connection: SsoConnectionRow, requestId: string | null): { assertionId: string; acceptableUntil: Date } {
  if (profile.issuer !== connection.issuer) throw failed(`the assertion's issuer ${profile.issuer ?? "(none)"} is not ${connection.issuer}`);
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlJs } | undefined)?.Assertion;
  const assertionId = assertion?.$?.ID;
  if (!assertion || !assertionId || assertionId.length > 200) throw failed("the assertion has no ID");
  const acs = samlAcsUrl(connection.workspaceId);
  const now = Date.now();
  const confirmations = children(children(assertion, "Subject")[0], "SubjectConfirmation")
    .filter((c) => c.$?.Method === BEARER)
    .map((c) => children(c, "SubjectConfirmationData")[0]?.$ ?? {});
  if (confirmations.length === 0) throw failed("the assertion has no bearer SubjectConfirmation");
  const forUs = confirmations.filter((d) => d.Recipient === acs);
  if (forUs.length === 0) throw failed(`the assertion's Recipient is not this workspace's ACS URL ${acs}`);
  const current = forUs.filter((d) => {
    const until = timeOf(d.NotOnOrAfter);
    const from = d.NotBefore === undefined ? null : timeOf(d.NotBefore);
    return until !== null && now < until + SAML_CLOCK_SKEW_MS && (from === null || now + SAML_CLOCK_SKEW_MS >= from);
  });
  if (current.length === 0) throw failed("the assertion has expired (its SubjectConfirmationData NotOnOrAfter has passed) or is not yet valid");
  const answering = current.find((d) => (d.InResponseTo || null) === requestId);
  if (!answering) throw failed(requestId ? "the assertion does not answer the request this response claims to" : "the assertion answers a request, but the response names none");
  const conditionsUntil = timeOf(children(assertion, "Conditions")[0]?.$?.NotOnOrAfter) ?? 0;
  const acceptableUntil = new Date(Math.max(timeOf(answering.NotOnOrAfter)!, conditionsUntil) + SAML_CLOCK_SKEW_MS);
  return { assertionId, acceptableUntil };
}

function emailOf(profile: Profile): string | undefined {
  if (profile.nameIDFormat === NAMEID_EMAIL && profile.nameID) return profile.nameID;
  for (const name of EMAIL_ATTRIBUTES) {
    const v = firstString(profile[name]);
    if (v) return v;
  }
  return undefined;
}

function nameOf(profile: Profile): string | null {
  for (const name of NAME_ATTRIBUTES) {
    const v = firstString(profile[name]);
    if (v) return v;
  }
  return null;
}

/**
 * Finishes a SAML sign-in at the workspace's ACS (HTTP-POST binding). The response must answer an
 * AuthnRequest we sent for this connection and still keep (used once: the row is deleted) from the
 * browser that holds its cookie (as OIDC's state: no one else's response signs this browser in), unless
 * it answers none and the connection allows IdP-initiated sign-in. node-saml checks the signature
 * (the assertion signed by one of the IdP's certificates), audience and time window; checkAssertion
 * the rest. An assertion's ID is accepted once (kept until it expires). Then as every SSO sign-in.
 */
export async function completeSamlSignIn(workspaceId: string, form: URLSearchParams, requestCookie: string | undefined): Promise<SsoSignedIn> {
  const samlResponse = form.get("SAMLResponse");
  if (!samlResponse) throw failed("the request carries no SAMLResponse");
  const q = await queryable();
  const [connection] = await q.select().from(ssoConnections).where(eq(ssoConnections.workspaceId, workspaceId));
  if (!connection || connection.protocol !== "saml") throw new SsoRefusal("no_connection", "This workspace has no SAML connection.");
  const { inResponseTo, destination } = await envelope(samlResponse);
  const acs = samlAcsUrl(workspaceId);
  if (destination !== null && destination !== acs) throw failed(`the response's Destination ${destination.slice(0, 300)} is not this workspace's ACS URL ${acs}`);

  let next = IDP_INITIATED_NEXT;
  if (inResponseTo) {
    const expired = () => new SsoRefusal("expired", "This sign-in has expired, was already used, was started in another browser, or answers a request AgentDraft did not send: start again.");
    if (!requestCookie || !sameString(requestCookie, inResponseTo)) throw expired();
    const [request] = await q
      .delete(ssoSamlRequests)
      .where(and(eq(ssoSamlRequests.id, inResponseTo.slice(0, 200)), eq(ssoSamlRequests.connectionId, connection.id)))
      .returning();
    if (!request || request.expiresAt.getTime() < Date.now()) throw expired();
    next = request.next;
  } else if (!connection.samlAllowIdpInitiated) {
    throw new SsoRefusal("unsolicited", "Your identity provider sent a sign-in AgentDraft did not ask for (IdP-initiated): start from AgentDraft's sign-in page.");
  }

  let profile: Profile | null;
  try {
    ({ profile } = await serviceProvider(connection).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    throw failed(describeError(err));
  }
  if (!profile) throw failed("the response carries no assertion");
  const { assertionId, acceptableUntil } = checkAssertion(profile, connection, inResponseTo);

  // The same assertion twice is a replay: its ID is kept until it could no longer be accepted anyway.
  await q.execute(sql`delete from sso_saml_assertions where (connection_id, assertion_id) in (select connection_id, assertion_id from sso_saml_assertions where expires_at < now() limit 100)`);
  const kept = await q.insert(ssoSamlAssertions).values({ connectionId: connection.id, assertionId, expiresAt: acceptableUntil }).onConflictDoNothing().returning({ id: ssoSamlAssertions.assertionId });
  if (kept.length === 0) throw new SsoRefusal("replayed", "This sign-in response was already used: start again.");

  return admitSsoPerson(connection, { email: emailOf(profile), name: nameOf(profile), subject: profile.nameID, protocol: "saml" }, next);
}
