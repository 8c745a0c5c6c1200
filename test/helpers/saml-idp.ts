import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import * as samlifyModule from "samlify";

// samlify is CommonJS: Node's own ESM loader (Playwright's e2e) does not see every named export
// (SamlLib), vitest's does. Its module object serves both.
const samlify = ((samlifyModule as unknown as { default?: typeof samlifyModule }).default ?? samlifyModule) as typeof samlifyModule;

// samlify validates XML against the SAML schemas only through a plug-in validator; this test IdP
// reads only requests we sent, and our service provider (node-saml) validates what it receives.
samlify.setSchemaValidator({ validate: async () => "skipped" });

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../fixtures/saml", name), "utf8");
const NAMEID_EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/** The values of samlify's login response template (samlify's own names); a test overrides any. */
export type ResponseValues = {
  ID: string;
  AssertionID: string;
  Destination: string;
  Audience: string;
  SubjectRecipient: string;
  Issuer: string;
  IssueInstant: string;
  InResponseTo: string;
  ConditionsNotBefore: string;
  ConditionsNotOnOrAfter: string;
  SubjectConfirmationDataNotOnOrAfter: string;
  NameIDFormat: string;
  NameID: string;
  StatusCode: string;
};

/** Who the IdP says signed in, and what of its answer a test bends. */
export type Answer = { email: string; nameIdFormat?: string; attributes?: Record<string, string>; values?: Partial<ResponseValues> };

/** What the IdP's auto-submitting form posts to the service provider's ACS. */
export type PostedResponse = { acs: string; SAMLResponse: string; RelayState: string | null };

export type SamlTestIdp = {
  entityId: string;
  ssoUrl: string;
  metadataUrl: string;
  metadataXml: string;
  /** Trusts a service provider (its metadata XML, as AgentDraft serves it). */
  trust: (spMetadataXml: string) => void;
  /** Who logs in at the next request, and how the answer is bent (the test plays the person at the IdP). */
  answerNext: (answer: Answer) => void;
  /** A response no request asked for (IdP-initiated sign-in), to the SP of this entity id. */
  unsolicited: (spEntityId: string, answer: Answer) => Promise<PostedResponse>;
  close: () => Promise<void>;
};

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();
const samlId = () => `_${randomBytes(16).toString("hex")}`;
const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function attributeStatement(attributes: Record<string, string> | undefined): string {
  if (!attributes || Object.keys(attributes).length === 0) return "";
  const each = Object.entries(attributes)
    .map(([name, value]) => `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">${escapeXml(value)}</saml:AttributeValue></saml:Attribute>`)
    .join("");
  return `<saml:AttributeStatement>${each}</saml:AttributeStatement>`;
}

/**
 * A SAML 2.0 identity provider on loopback, built with samlify: metadata at /metadata, the
 * SingleSignOnService (HTTP-Redirect) at /sso, which answers the browser an auto-submitting form
 * with a signed SAMLResponse for the ACS, as Okta or Entra ID do (a real browser submits it; the
 * e2e story does, in Chromium). `key: "rogue"` signs with another key than the one its metadata
 * shows (a forger claiming this IdP's entity id). `port`: a fixed one (e2e), else any free one.
 */
export async function startSamlTestIdp(opts: { key?: "idp" | "rogue"; entityId?: string; publishedKey?: "idp" | "rogue"; port?: number } = {}): Promise<SamlTestIdp> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = opts.entityId ?? `${origin}/metadata`;
  const signingKey = opts.key ?? "idp";
  const published = opts.publishedKey ?? "idp";
  const idp = samlify.IdentityProvider({
    entityID: entityId,
    privateKey: fixture(`${signingKey}.key`),
    signingCert: fixture(`${signingKey}.crt`),
    nameIDFormat: [NAMEID_EMAIL],
    singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: `${origin}/sso` }],
    wantAuthnRequestsSigned: false,
  });
  // The metadata shows the published certificate (the genuine one, even when this IdP forges).
  const metadataXml = samlify
    .IdentityProvider({ entityID: entityId, signingCert: fixture(`${published}.crt`), nameIDFormat: [NAMEID_EMAIL], singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: `${origin}/sso` }] })
    .getMetadata();
  const sps = new Map<string, ReturnType<typeof samlify.ServiceProvider>>();
  let next: Answer = { email: "nobody@example.test" };

  async function respond(sp: ReturnType<typeof samlify.ServiceProvider>, inResponseTo: string, answer: Answer): Promise<PostedResponse> {
    const acs = sp.entityMeta.getAssertionConsumerService("post") as string;
    const values: ResponseValues = {
      ID: samlId(),
      AssertionID: samlId(),
      Destination: acs,
      Audience: sp.entityMeta.getEntityID(),
      SubjectRecipient: acs,
      Issuer: entityId,
      IssueInstant: iso(),
      InResponseTo: inResponseTo,
      ConditionsNotBefore: iso(-1000),
      ConditionsNotOnOrAfter: iso(5 * 60_000),
      SubjectConfirmationDataNotOnOrAfter: iso(5 * 60_000),
      NameIDFormat: answer.nameIdFormat ?? NAMEID_EMAIL,
      NameID: answer.email,
      StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
      ...answer.values,
    };
    const { context } = (await idp.createLoginResponse(sp, { extract: {} } as never, "post", { email: answer.email }, (template: string) => {
      // The statements are XML: put in before the template's values, which samlify escapes.
      const statements = template
        .replace("{AuthnStatement}", `<saml:AuthnStatement AuthnInstant="${values.IssueInstant}" SessionIndex="${samlId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`)
        .replace("{AttributeStatement}", attributeStatement(answer.attributes));
      let xml = samlify.SamlLib.replaceTagsByValue(statements, values);
      // An unsolicited response has no InResponseTo at all (not an empty one).
      if (!values.InResponseTo) xml = xml.replaceAll(' InResponseTo=""', "");
      return { id: values.ID, context: xml };
    })) as { context: string };
    return { acs, SAMLResponse: context, RelayState: null };
  }

  server.on("request", async (req: http.IncomingMessage, res: http.ServerResponse) => {
    try {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname === "/metadata") return void res.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(metadataXml);
      if (url.pathname !== "/sso") return void res.writeHead(404).end();
      const request = inflateRawSync(Buffer.from(url.searchParams.get("SAMLRequest") ?? "", "base64")).toString("utf8");
      const issuer = /<(?:\w+:)?Issuer[^>]*>([^<]+)</.exec(request)?.[1];
      const sp = issuer ? sps.get(issuer) : undefined;
      if (!sp) return void res.writeHead(400).end(`unknown service provider ${issuer}`);
      const parsed = await idp.parseLoginRequest(sp, "redirect", { query: Object.fromEntries(url.searchParams), octetString: "" } as never);
      const requestId = (parsed.extract as { request?: { id?: string } }).request?.id ?? "";
      const posted = await respond(sp, requestId, next);
      const relay = url.searchParams.get("RelayState");
      // As Okta's or Entra ID's: the browser posts the response to the ACS (cross-site) as soon as the page loads; without scripts, a button does.
      const form =
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test SAML IdP</title></head><body onload="document.forms[0].submit()">` +
        `<h1>Test SAML IdP</h1><p>Signing in ${escapeXml(next.email)}…</p>` +
        `<form method="post" action="${escapeXml(posted.acs)}"><input type="hidden" name="SAMLResponse" value="${posted.SAMLResponse}"/>${relay ? `<input type="hidden" name="RelayState" value="${escapeXml(relay)}"/>` : ""}<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
      res.writeHead(200, { "content-type": "text/html" }).end(form);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });

  return {
    entityId,
    ssoUrl: `${origin}/sso`,
    metadataUrl: `${origin}/metadata`,
    metadataXml,
    trust: (xml) => {
      const sp = samlify.ServiceProvider({ metadata: xml });
      sps.set(sp.entityMeta.getEntityID(), sp);
    },
    answerNext: (answer) => {
      next = answer;
    },
    unsolicited: async (spEntityId, answer) => {
      const sp = sps.get(spEntityId);
      if (!sp) throw new Error(`unknown service provider ${spEntityId}`);
      return respond(sp, "", answer);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Reads the IdP's auto-submitting form: where it posts and what. */
export function readPostForm(html: string): PostedResponse {
  const acs = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  const SAMLResponse = /name="SAMLResponse" value="([^"]+)"/.exec(html)?.[1];
  if (!acs || !SAMLResponse) throw new Error(`not an IdP form post: ${html.slice(0, 300)}`);
  return { acs: acs.replaceAll("&#38;", "&"), SAMLResponse, RelayState: /name="RelayState" value="([^"]*)"/.exec(html)?.[1] ?? null };
}
