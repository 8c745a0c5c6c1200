import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { E2E_SETUP_TOKEN } from "./setup-token";
import { startTestIdp, type TestIdp } from "../test/helpers/oidc-provider";
import { startTestDns, type TestDns } from "../test/helpers/dns-server";

// Enterprise sign-in with OpenID Connect, in Chromium (docs/sso.md): the owner connects the
// organisation's identity provider (a real oidc-provider on PORT + 61) and proves the email domain
// with a DNS TXT record (a small DNS server on UDP PORT + 62, which the server asks through
// SSO_DNS_SERVER). A member then signs in with SSO at the provider's sign-in page, enrols the passkey
// approvals need, and lands in the SSO workspace. Its own server (first run) on PORT + 60.
test.describe.configure({ mode: "serial" });

const PORT = Number(process.env.E2E_PORT ?? 3217);
const APP = `http://localhost:${PORT + 60}`;
const DOMAIN = "acme-sso.test";
const CLIENT = { client_id: "agentdraft-e2e", client_secret: "e2e-idp-client-secret", redirect_uris: [`${APP}/sso/callback`] };

let idp: TestIdp;
let dns: TestDns;
let owner: BrowserContext;
let ownerPage: Page;
let member: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  idp = await startTestIdp([CLIENT], { port: PORT + 61, loginForm: true });
  dns = await startTestDns(PORT + 62);
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  ownerPage = await pageWithAuthenticator(owner);
  member = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(member);
});

test.afterAll(async () => {
  await owner?.close();
  await member?.close();
  await idp?.close();
  await dns?.close();
});

test("the owner adds an OIDC connection and a domain, verified by its DNS TXT record, and requires SSO for it", async () => {
  const p = ownerPage;
  await p.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await p.getByLabel("Workspace name").fill("Acme SSO");
  await p.getByLabel("Your name").fill("Olu Owner");
  await p.getByLabel("Email").fill("olu@owners.example");
  await p.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(p).toHaveURL(/\/overview$/);

  await p.goto("/settings/sso");
  await expect(p.getByText(`${APP}/sso/callback`)).toBeVisible();
  await p.getByLabel("Issuer URL").fill(idp.issuer);
  await p.getByLabel("Client id").fill(CLIENT.client_id);
  await p.getByLabel("Client secret").fill(CLIENT.client_secret);
  await p.getByLabel(/Add people of verified domains/).check();
  // A workspace without a connection: the OIDC tab's button says what saving does.
  await p.getByRole("button", { name: "Use OpenID Connect" }).click();
  await expect(p.getByRole("status").filter({ hasText: `Connection saved: ${idp.issuer} answered its discovery document` })).toBeVisible();

  await p.getByLabel("Domain", { exact: true }).fill(DOMAIN);
  await p.getByRole("button", { name: "Add domain" }).click();
  await expect(p.getByRole("status").filter({ hasText: `${DOMAIN} added` })).toBeVisible();
  const row = p.getByRole("row").filter({ hasText: DOMAIN });
  await expect(row).toContainText("not verified");

  // Not published yet: verifying says which record to add.
  await row.getByRole("button", { name: `Verify ${DOMAIN}` }).click();
  await expect(p.getByRole("alert").filter({ hasText: `No TXT record _agentdraft.${DOMAIN}` })).toBeVisible();
  // The owner publishes the record the page shows, at the (local) DNS host, and verifies again.
  const recordName = (await row.locator("code").nth(0).textContent())!.trim();
  const recordValue = (await row.locator("code").nth(1).textContent())!.trim();
  expect(recordName).toBe(`_agentdraft.${DOMAIN}`);
  expect(recordValue).toMatch(/^agentdraft-verification=/);
  dns.setTxt(recordName, ["v=spf1 -all", recordValue]);
  await row.getByRole("button", { name: `Verify ${DOMAIN}` }).click();
  // The row now shows the domain verified (its Verify form gives way to Require SSO).
  await expect(row.getByText("verified", { exact: true })).toBeVisible();
  await row.getByRole("button", { name: `Require SSO for ${DOMAIN}` }).click();
  await expect(row.getByRole("button", { name: `Stop requiring SSO for ${DOMAIN}` })).toBeVisible();
  await expect(row).toContainText("SSO required");
  await snap(p, "sso-settings");
});

test("a member signs in with SSO at the identity provider, is sent to enrol a passkey, and lands in the SSO workspace", async () => {
  // A workspace chosen earlier in this browser (the switcher's cookie) does not win over the SSO workspace.
  await member.addCookies([{ name: "agentdraft-workspace", value: "ws_chosen_before", url: APP }]);
  await page.goto("/sign-in");
  const ssoEmail = page.getByLabel("Or sign in with your organisation (SSO)");
  await expect(ssoEmail).toBeVisible();
  await ssoEmail.fill(`grace@${DOMAIN}`);
  await snap(page, "sso-sign-in");
  await page.getByRole("button", { name: "Sign in with SSO" }).click();

  // At the identity provider's own sign-in page (another origin), with the email as a login hint.
  await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
  await expect(page.getByRole("heading", { name: "Test IdP" })).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue(`grace@${DOMAIN}`);
  await snap(page, "sso-idp-login");
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Sign in" }).click();

  // Back, signed in (a viewer, provisioned just in time), without a passkey: sent to enrol one.
  await expect(page).toHaveURL(`${APP}/settings?passkey=enrol#passkeys`);
  await expect(page.getByTestId("workspace-name")).toHaveText("Acme SSO");
  await expect(page.getByText("You signed in with single sign-on and have no passkey yet")).toBeVisible();
  const chosen = (await member.cookies(APP)).find((c) => c.name === "agentdraft-workspace");
  expect(chosen?.value).toMatch(/^ws_/);
  expect(chosen?.value).not.toBe("ws_chosen_before");

  // Enrolling is allowed although the domain requires SSO: this session began with her SSO sign-in.
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("table", { name: "Your passkeys" })).toContainText("Passkey 1");
  await snap(page, "sso-passkey-enrolled");
  // In her SSO session the passkey confirms (the step-up approvals and passkey changes ask for), though it signs her in nowhere.
  await page.getByRole("button", { name: "Confirm with a passkey" }).click();
  await expect(page.getByRole("button", { name: "Add a passkey" })).toBeVisible();

  await page.goto("/overview");
  await expect(page.getByText("Signed in as")).toBeAttached();
  await expect(page.getByTestId("workspace-name")).toHaveText("Acme SSO");
});

test("with SSO required, the member's passkey does not sign her in; SSO does, straight to where she was going", async () => {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByText("If your organisation requires single sign-on for your email domain")).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in/);

  await page.goto("/sign-in?next=%2Fapprovals");
  await page.getByLabel("Or sign in with your organisation (SSO)").fill(`grace@${DOMAIN}`);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  // The identity provider still has her session (no second login there), and she has a passkey now: no detour to enrol.
  await expect(page).toHaveURL(`${APP}/approvals`);
  await expect(page.getByTestId("workspace-name")).toHaveText("Acme SSO");
});

test("an email on no verified domain is told to use its passkey", async ({ browser }) => {
  const stranger = await browser.newContext();
  const p = await stranger.newPage();
  await p.goto(`${APP}/sign-in`);
  await p.getByLabel("Or sign in with your organisation (SSO)").fill("someone@elsewhere.example");
  await p.getByRole("button", { name: "Sign in with SSO" }).click();
  await expect(p).toHaveURL(/\/sign-in\?sso_error=no_connection/);
  await expect(p.getByText("No workspace signs in your email domain with SSO")).toBeVisible();
  await stranger.close();
});
