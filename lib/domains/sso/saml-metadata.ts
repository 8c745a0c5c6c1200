import { X509Certificate } from "node:crypto";
import { generateServiceProviderMetadata } from "@node-saml/node-saml";
import { parseDomFromString, xpath } from "@node-saml/node-saml/lib/xml";
import { publicOrigin } from "../../platform/config/public-url";
import { AppError } from "../../platform/errors";
import { guardedFetch, insecureAllowed } from "../../platform/outbound/guarded-fetch";
import { describeError } from "./discovery";

export const NAMEID_EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
/** The most signing certificates one IdP's metadata may list (a rollover lists two or three). */
const MAX_CERTIFICATES = 5;
export const MAX_METADATA_CHARS = 200_000;

/** Our service provider's names for a workspace: stable before any connection exists, so an admin registers them first. */
export const samlEntityId = (workspaceId: string) => `${publicOrigin()}/sso/saml/${workspaceId}/metadata`;
export const samlAcsUrl = (workspaceId: string) => `${publicOrigin()}/sso/saml/${workspaceId}/acs`;

/** Our SP metadata (unsigned requests, signed assertions wanted, NameID email, ACS by HTTP-POST). */
export function samlSpMetadataXml(workspaceId: string): string {
  return generateServiceProviderMetadata({ issuer: samlEntityId(workspaceId), callbackUrl: samlAcsUrl(workspaceId), identifierFormat: NAMEID_EMAIL, wantAssertionsSigned: true });
}

/** What AgentDraft keeps of an IdP's metadata. */
export type IdpMetadata = { entityId: string; ssoUrl: string; certificates: string[] };

const invalid = (field: string, problem: string) => new AppError("validation_failed", `${field}: ${problem}`, { errors: [{ field, message: problem }] });

/** A base64 DER certificate from metadata as PEM, or null when it is not a certificate. */
function toPem(base64: string): string | null {
  const body = base64.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+=*$/.test(body)) return null;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return null;
  }
}

const httpsOrAllowed = (raw: string) => {
  try {
    const u = new URL(raw);
    return u.protocol === "https:" || (u.protocol === "http:" && insecureAllowed(u));
  } catch {
    return false;
  }
};

/**
 * Reads an IdP's SAML metadata: its entity id, its SingleSignOnService for the HTTP-Redirect
 * binding, and its signing certificates. Refused, saying why, when one is missing.
 */
export async function parseIdpMetadata(xml: string, field = "metadata_xml"): Promise<IdpMetadata> {
  if (xml.length > MAX_METADATA_CHARS) throw invalid(field, `metadata is at most ${MAX_METADATA_CHARS} characters`);
  if (/<!DOCTYPE/i.test(xml)) throw invalid(field, "metadata with a DOCTYPE is refused");
  let doc: Document;
  try {
    doc = await parseDomFromString(xml.trim());
  } catch (err) {
    throw invalid(field, `not well-formed XML (${describeError(err)})`);
  }
  const [entity] = xpath.selectElements(doc, "//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]");
  if (!entity) throw invalid(field, "no EntityDescriptor with an IDPSSODescriptor: paste the identity provider's (IdP) metadata");
  const entityId = entity.getAttribute("entityID")?.trim();
  if (!entityId) throw invalid(field, "the EntityDescriptor has no entityID");
  const [sso] = xpath.selectElements(entity, `./*[local-name()='IDPSSODescriptor']/*[local-name()='SingleSignOnService'][@Binding='${REDIRECT_BINDING}']`);
  const ssoUrl = sso?.getAttribute("Location")?.trim();
  if (!ssoUrl) throw invalid(field, "no SingleSignOnService with the HTTP-Redirect binding");
  if (!httpsOrAllowed(ssoUrl)) throw invalid(field, `the SingleSignOnService ${ssoUrl} is not an https URL`);
  const certNodes = xpath.selectElements(
    entity,
    "./*[local-name()='IDPSSODescriptor']/*[local-name()='KeyDescriptor'][not(@use) or @use='signing']//*[local-name()='X509Certificate']",
  );
  const certificates = [...new Set(certNodes.map((n) => toPem(n.textContent ?? "")))];
  if (certificates.includes(null)) throw invalid(field, "a signing X509Certificate is not a valid certificate");
  if (certificates.length === 0) throw invalid(field, "no signing certificate (KeyDescriptor with an X509Certificate)");
  if (certificates.length > MAX_CERTIFICATES) throw invalid(field, `at most ${MAX_CERTIFICATES} signing certificates`);
  return { entityId: entityId.slice(0, 1000), ssoUrl, certificates: certificates as string[] };
}

/** Loads the IdP's metadata from its URL through the SSRF guard (https, public address unless allowlisted). */
export async function fetchIdpMetadata(url: string): Promise<IdpMetadata> {
  let text: string;
  try {
    const res = await guardedFetch(url, { headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" } });
    if (!res.ok) throw new Error(`answered HTTP ${res.status}`);
    text = await res.text();
  } catch (err) {
    throw invalid("metadata_url", `loading ${url} failed: ${describeError(err)}`);
  }
  return parseIdpMetadata(text, "metadata_url");
}

/** What the settings page shows of a stored signing certificate. */
export function describeCertificate(pem: string): { subject: string; fingerprint: string; validTo: Date } {
  const cert = new X509Certificate(pem);
  return { subject: cert.subject.replace(/\n/g, ", "), fingerprint: cert.fingerprint256, validTo: new Date(cert.validTo) };
}
