import { expect, test, type BrowserContext, type Page, type Request } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { E2E_SETUP_TOKEN } from "./setup-token";
import { startSamlTestIdp, type SamlTestIdp } from "../test/helpers/saml-idp";
import { startTestDns, type TestDns } from "../test/helpers/dns-server";

// Enterprise sign-in with SAML 2.0, in Chromium (docs/sso.md): the owner pastes the organisation's
// IdP metadata (a samlify IdP on loopback, PORT + 71) on the SAML tab and proves the email domain by
// a DNS TXT record (a small DNS server on UDP PORT + 72, asked through SSO_DNS_SERVER), then requires
// SSO for it. Someone invited on that domain cannot make a passkey from the link: the invitation page
// sends her to SSO, and signing in accepts the invitation (the invited role). The IdP answers the
// browser a form that posts itself to our ACS, as Okta or Entra ID do. Its own server (first run) on PORT + 70.
//
// The browser's half of a SAML sign-in is a cookie (the AuthnRequest's id) that must come back with
// the IdP's form post, a cross-site POST: so it is SameSite=None, and browsers keep SameSite=None
// cookies only when Secure. Chromium (156 here) counts loopback origins as secure: it keeps a
// Secure cookie set over plain http on http://localhost and on http://127.0.0.1 alike, and sends it
// with a cross-site form POST (checked with a throwaway page pair, both ways round). So the cookie
// does not force the host; the story uses http://localhost like the others (AUTH_URL, and WebAuthn
// wants it) with the IdP on http://127.0.0.1, another site, so the post is as cross-site as in
// production. It checks the cookie on the wire below: without it the ACS would answer "expired".
// A plain-http deployment on a non-loopback host would lose the cookie: serve AgentDraft over https.
test.describe.configure({ mode: "serial" });

const PORT = Number(process.env.E2E_PORT ?? 3217);
const APP = `http://localhost:${PORT + 70}`;
// The server listens on 127.0.0.1 only; the test's own requests go there (the SP metadata names AUTH_URL whatever the Host).
const APP_LOOPBACK = `http://127.0.0.1:${PORT + 70}`;
const DOMAIN = "acme-saml.test";
const INVITEE = `ines@${DOMAIN}`;

let idp: SamlTestIdp;
let dns: TestDns;
let owner: BrowserContext;
let ownerPage: Page;
let invitee: BrowserContext;
let page: Page;
let inviteLink: string;

test.beforeAll(async ({ browser }) => {
  idp = await startSamlTestIdp({ port: PORT + 71 });
  dns = await startTestDns(PORT + 72);
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  ownerPage = await pageWithAuthenticator(owner);
  invitee = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(invitee);
});

test.afterAll(async () => {
  await owner?.close();
  await invitee?.close();
  await idp?.close();
  await dns?.close();
});

test("the owner pastes the IdP's SAML metadata, verifies a domain by DNS, requires SSO for it, and invites someone of it", async () => {
  const p = ownerPage;
  await p.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await p.getByLabel("Workspace name").fill("Acme SAML");
  await p.getByLabel("Your name").fill("Sam Owner");
  await p.getByLabel("Email").fill("sam@owners.example");
  await p.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(p).toHaveURL(/\/overview$/);

  await p.goto("/settings/sso");
  await p.getByRole("navigation", { name: "Protocol" }).getByRole("link", { name: "SAML 2.0" }).click();
  await expect(p).toHaveURL(/\/settings\/sso\?protocol=saml/);
  // The values to register in the IdP: our ACS URL and entity id, named by the public URL.
  const acs = (await p.getByText(new RegExp(`^${APP}/sso/saml/ws_\\w+/acs$`)).first().textContent())!.trim();
  const workspaceId = /\/sso\/saml\/(ws_\w+)\/acs$/.exec(acs)![1]!;
  await expect(p.getByText(`${APP}/sso/saml/${workspaceId}/metadata`).first()).toBeVisible();
  // The IdP admin registers AgentDraft from its SP metadata.
  const spMetadata = await (await fetch(`${APP_LOOPBACK}/sso/saml/${workspaceId}/metadata`)).text();
  expect(spMetadata).toContain(`Location="${acs}"`);
  idp.trust(spMetadata);

  await p.getByLabel("IdP metadata XML").fill(idp.metadataXml);
  await snap(p, "sso-saml-settings");
  await p.getByRole("button", { name: "Use SAML" }).click();
  await expect(p.getByRole("status").filter({ hasText: `SAML connection saved: ${idp.entityId}, 1 signing certificate(s).` })).toBeVisible();
  await expect(p.getByText(`This workspace signs in with SAML 2.0 (${idp.entityId})`)).toBeVisible();
  await expect(p.getByText(idp.ssoUrl).first()).toBeVisible();

  await p.getByLabel("Domain", { exact: true }).fill(DOMAIN);
  await p.getByRole("button", { name: "Add domain" }).click();
  await expect(p.getByRole("status").filter({ hasText: `${DOMAIN} added` })).toBeVisible();
  const row = p.getByRole("row").filter({ hasText: DOMAIN });
  const recordName = (await row.locator("code").nth(0).textContent())!.trim();
  const recordValue = (await row.locator("code").nth(1).textContent())!.trim();
  dns.setTxt(recordName, [recordValue]);
  await row.getByRole("button", { name: `Verify ${DOMAIN}` }).click();
  await expect(row.getByText("verified", { exact: true })).toBeVisible();
  await row.getByRole("button", { name: `Require SSO for ${DOMAIN}` }).click();
  await expect(row).toContainText("SSO required");
  await snap(p, "sso-saml-settings-saved");

  // The connection does not add people just in time: an invitation is what lets Ines in.
  await p.goto("/members");
  await p.getByLabel("Email", { exact: true }).fill(INVITEE);
  await p.getByLabel("Role", { exact: true }).selectOption("approver");
  await p.getByRole("button", { name: "Send invitation" }).click();
  await expect(p.getByRole("status")).toContainText("captured");
  await p.goto("/mail");
  await p.getByText("You are invited to Acme SAML").click();
  const text = await p.getByTestId("mail-body").first().textContent();
  inviteLink = /http:\/\/\S+\/invite\/[A-Za-z0-9_-]+/.exec(text ?? "")![0]!;
});

test("someone not invited is refused at the ACS, with the reason", async ({ browser }) => {
  const stranger = await browser.newContext();
  const p = await stranger.newPage();
  idp.answerNext({ email: `zoe@${DOMAIN}` });
  await p.goto(`${APP}/sign-in`);
  await p.getByLabel("Or sign in with your organisation (SSO)").fill(`zoe@${DOMAIN}`);
  await p.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(p.getByRole("heading", { name: "Sign-in refused" })).toBeVisible();
  await expect(p.getByText("You are not a member of this workspace")).toBeVisible();
  await p.getByRole("link", { name: "Back to sign-in" }).click();
  await expect(p.getByText("You are not a member of this workspace yet.")).toBeVisible();
  await stranger.close();
});

test("the invitation link sends the invitee to SSO; signing in with SAML accepts it, in the invited role", async () => {
  await page.goto(inviteLink);
  await expect(page.getByRole("heading", { name: "Join Acme SAML" })).toBeVisible();
  await expect(page.getByText(`Your organisation signs in ${DOMAIN} with single sign-on`)).toBeVisible();
  // No passkey form: registering one would be refused on this domain.
  await expect(page.getByRole("button", { name: "Accept and create a passkey" })).toHaveCount(0);
  await snap(page, "sso-saml-invitation");

  // Who signs in at the IdP (the test plays the person there), then the browser does the rest.
  idp.answerNext({ email: INVITEE, attributes: { displayName: "Ines Invited" } });
  const acsPosts: Request[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().startsWith(`${APP}/sso/saml/`) && r.url().endsWith("/acs")) acsPosts.push(r);
  });
  await page.getByRole("button", { name: `Sign in with SSO as ${INVITEE}` }).click();

  // Back from the IdP, signed in, a member now; without a passkey, sent to enrol one.
  await expect(page).toHaveURL(`${APP}/settings?passkey=enrol#passkeys`);
  await expect(page.getByTestId("workspace-name")).toHaveText("Acme SAML");
  // The IdP's page (another site) posted to the ACS, and Chromium sent the SameSite=None; Secure request cookie with it over http://localhost.
  expect(acsPosts).toHaveLength(1);
  const headers = await acsPosts[0]!.allHeaders();
  expect(headers.origin).toBe(`http://127.0.0.1:${PORT + 71}`);
  expect(headers.cookie).toMatch(/(^|; )agentdraft-saml-request=_[0-9a-f]{40}(;|$)/);
  // The ACS cleared it.
  expect((await invitee.cookies()).find((c) => c.name === "agentdraft-saml-request")).toBeUndefined();

  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByRole("table", { name: "Your passkeys" })).toContainText("Passkey 1");
  await page.goto("/overview");
  await expect(page.getByText("Welcome, Ines Invited. You are an approver of Acme SAML.")).toBeVisible();

  // The link was used by the sign-in.
  await page.goto(inviteLink);
  await expect(page.getByRole("heading", { name: "Invitation not valid" })).toBeVisible();
  await expect(page.getByText("This invitation was already used.")).toBeVisible();
  await ownerPage.goto("/members");
  await expect(ownerPage.getByTestId(`member-${INVITEE}`)).toBeVisible();
  await expect(ownerPage.getByRole("button", { name: `Revoke invitation for ${INVITEE}` })).toHaveCount(0);
});

test("the member signs in again from the sign-in page through SAML, straight to where she was going", async () => {
  await page.goto("/overview");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/sign-in?next=%2Fapprovals");
  await page.getByLabel("Or sign in with your organisation (SSO)").fill(INVITEE);
  await snap(page, "sso-saml-sign-in");
  idp.answerNext({ email: INVITEE, attributes: { displayName: "Ines Invited" } });
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(page).toHaveURL(`${APP}/approvals`);
  await expect(page.getByTestId("workspace-name")).toHaveText("Acme SAML");
});
