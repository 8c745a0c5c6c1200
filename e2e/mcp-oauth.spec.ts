import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { pageWithAuthenticator, snap } from "./helpers";
import { E2E_SETUP_TOKEN } from "./setup-token";

// An MCP client connects to /api/mcp by URL alone: it registers itself, the owner consents in the
// browser with a passkey, the client acts as the chosen agent, refreshes, and is refused once the
// owner disconnects it on the keys page.
test.describe.configure({ mode: "serial" });

const CALLBACK = "http://127.0.0.1:9/oauth/callback";
let owner: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(owner);
});
test.afterAll(async () => {
  await owner?.close();
});

/** What an MCP host keeps for one server: its registration, the PKCE verifier and its tokens. */
function hostProvider() {
  let info: OAuthClientInformationMixed | undefined;
  let verifier = "";
  const state: { tokens?: OAuthTokens; authorizationUrl?: URL } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return CALLBACK;
    },
    get clientMetadata() {
      return { client_name: "Desk Assistant", redirect_uris: [CALLBACK], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    },
    clientInformation: () => info,
    saveClientInformation: (i) => void (info = i),
    tokens: () => state.tokens,
    saveTokens: (t) => void (state.tokens = t),
    redirectToAuthorization: (u) => void (state.authorizationUrl = u),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
  return { provider, state };
}

test("an MCP client connects by URL, the owner consents with a passkey, the client acts as the agent until disconnected", async ({ baseURL }) => {
  await page.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await page.getByLabel("Workspace name").fill("Front Desk");
  await page.getByLabel("Your name").fill("Olive Owner");
  await page.getByLabel("Email").fill("olive@example.test");
  await page.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  await page.goto("/agents");
  await page.getByLabel("Name").fill("desk-assistant");
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("status")).toContainText("Agent desk-assistant created");

  const mcpUrl = new URL(`${baseURL}/api/mcp`);
  const { provider, state } = hostProvider();
  await expect(new Client({ name: "desk", version: "1" }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow(/Unauthorized/);
  expect(state.authorizationUrl?.pathname).toBe("/oauth/authorize");

  // The browser follows the client's link; the callback is the client's (captured here).
  let callback: URL | undefined;
  await page.route("http://127.0.0.1:9/**", async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/plain", body: "You can close this window." });
  });
  await page.goto(state.authorizationUrl!.toString());
  await expect(page.getByRole("heading", { name: "Connect Desk Assistant" })).toBeVisible();
  await expect(page.getByText("127.0.0.1:9")).toBeVisible();
  await expect(page.getByText("New", { exact: true })).toBeVisible();
  await snap(page, "oauth-consent");
  // Signed up seconds ago: the passkey counts as confirmed; otherwise the page asks for it first.
  if (await page.getByRole("button", { name: "Confirm with a passkey" }).isVisible()) {
    await page.getByRole("button", { name: "Confirm with a passkey" }).click();
    await expect(page.getByText("Passkey confirmed.")).toBeVisible();
  }
  await page.getByLabel("Act as the agent").selectOption({ label: "desk-assistant" });
  await page.getByLabel("Manage webhook endpoints").uncheck();
  await page.getByRole("button", { name: "Allow" }).click();
  await expect.poll(() => callback?.searchParams.get("code") ?? null).not.toBeNull();
  expect(callback!.searchParams.get("iss")).toBe(baseURL);

  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(callback!.searchParams.get("code")!);
  const client = new Client({ name: "desk", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const who = await client.callTool({ name: "whoami", arguments: {} });
  expect(JSON.stringify(who.structuredContent ?? who.content)).toContain("desk-assistant");

  // A refresh rotates the tokens; the client keeps working.
  const first = state.tokens!.access_token;
  expect(await auth(provider, { serverUrl: mcpUrl })).toBe("AUTHORIZED");
  expect(state.tokens!.access_token).not.toBe(first);
  const again = new Client({ name: "desk", version: "1" });
  await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));

  // The keys page lists the connection; disconnecting it refuses the client's next request.
  await page.goto("/keys");
  const row = page.locator('[data-testid^="app-row-"]', { hasText: "Desk Assistant" });
  await expect(row).toContainText("desk-assistant");
  await expect(row).toContainText("connected");
  await snap(page, "oauth-connected-applications");
  await row.getByRole("button", { name: /Disconnect/ }).click();
  await expect(row).toContainText("disconnected");
  const refused = await fetch(mcpUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${state.tokens!.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  expect(refused.status).toBe(401);
});
