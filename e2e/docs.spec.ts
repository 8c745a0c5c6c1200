import { expect, test } from "@playwright/test";
import { DOCS_PAGES } from "../lib/composition/docs/pages";
import { snap } from "./helpers";

// The developer docs are server-rendered: they must read fully without JavaScript and load
// nothing from another origin (no CDN at runtime).
test.use({ javaScriptEnabled: false });

test.beforeEach(async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  page.on("request", (req) => {
    if (!req.url().startsWith(origin) && !req.url().startsWith("data:")) throw new Error(`docs loaded ${req.url()} from another origin`);
  });
});

test("getting started guide: workspace to first hold, webhooks and MCP, with a table of contents", async ({ page }) => {
  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1, name: "Getting started for agent developers" })).toBeVisible();
  const toc = page.getByRole("navigation", { name: "On this page" });
  await expect(toc.getByRole("link")).toHaveCount(6);
  await expect(page.locator("pre").filter({ hasText: "npx agentdraft key create" })).toBeVisible();
  await expect(page.locator("pre").filter({ hasText: 'agentdraft.POST("/v1/calendars/{id}/holds"' })).toBeVisible();
  await expect(page.locator("pre").filter({ hasText: "verifyWebhook(await req.text()" })).toBeVisible();
  await expect(page.locator("pre").filter({ hasText: '"url": "http://localhost:3000/api/mcp"' })).toBeVisible();
  await page.screenshot({ path: "e2e/artifacts/docs-getting-started-top.png" });
  await snap(page, "docs-getting-started");
  await toc.getByRole("link", { name: "5. Connect an MCP client" }).click();
  await expect(page).toHaveURL(/#5-connect-an-mcp-client$/);
});

test("API reference: every operation of the OpenAPI document, with parameters, bodies, examples and schemas", async ({ page, request }) => {
  const doc = await (await request.get("/api/v1/openapi.json")).json();
  const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
  await page.goto("/docs/api");
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  for (const id of ids) await expect(page.locator(`section#${id}`)).toHaveCount(1);
  expect(await page.locator("main section[id]:not([id^=tag-]):not([id^=schema-]):not(#schemas)").count()).toBe(ids.length);

  const place = page.locator("section#placeHold");
  await expect(place.getByRole("heading", { name: "POST /api/v1/calendars/{id}/holds" })).toBeVisible();
  await expect(place.getByRole("cell", { name: "priority", exact: true })).toBeVisible();
  await expect(place.getByText("0–100 · default 50")).toBeVisible();
  await expect(place.locator("pre")).toContainText(/"start_time":"(\d{4}-\d{2}-\d{2})T15:00:00Z","end_time":"\1T17:00:00Z"/);
  await place.getByRole("link", { name: "Hold", exact: true }).first().click();
  await expect(page).toHaveURL(/#schema-Hold$/);
  await expect(page.locator("section#schema-Hold").getByRole("cell", { name: "preempted_by.hold_id" })).toBeVisible();
  await page.locator("section#schema-Hold").screenshot({ path: "e2e/artifacts/docs-api-schema-hold.png" });
  await place.screenshot({ path: "e2e/artifacts/docs-api-place-hold.png" });
  await page.goto("/docs/api");
  // Its first screen only: a full-page screenshot of the whole reference took Chromium most of a
  // minute on a loaded machine, for an image nobody reads to the end.
  await page.screenshot({ path: "e2e/artifacts/docs-api-top.png" });
});

test("error codes: each problem's type links to its row", async ({ page }) => {
  await page.goto("/docs/errors#hold_conflict");
  await expect(page.getByRole("heading", { level: 1, name: "Error codes" })).toBeVisible();
  const row = page.locator("tr#hold_conflict");
  await expect(row).toContainText("409");
  await expect(row).toContainText("conflicts[]");
  await snap(page, "docs-errors");
});

test("the docs' menu lists every page; the configuration page shows every variable of env.ts, and links between pages lead to them", async ({ page }) => {
  await page.goto("/docs/configuration");
  await expect(page.getByRole("heading", { level: 1, name: "Configuration" })).toBeVisible();
  const menu = page.getByRole("navigation", { name: "Documentation" });
  for (const p of DOCS_PAGES) await expect(menu.getByRole("link", { name: p.title, exact: true })).toHaveAttribute("href", p.route);
  // Generated from lib/platform/config/env.ts: each variable once, in its group, with when production needs it.
  await expect(page.getByRole("heading", { level: 2, name: "Secrets and sign-in" })).toBeVisible();
  await expect(page.getByRole("row").filter({ has: page.getByRole("cell", { name: "AGENTDRAFT_ENCRYPTION_KEYS", exact: true }) })).toContainText("required");
  await page.screenshot({ path: "e2e/artifacts/docs-configuration-top.png" });
  await page.getByRole("link", { name: "Start-up checks", exact: true }).first().click();
  await expect(page).toHaveURL(/\/docs\/production#start-up-checks$/);
  await expect(page.getByRole("heading", { level: 2, name: "Start-up checks" })).toBeVisible();
  await page.goto("/docs/security");
  await expect(page.getByRole("heading", { level: 1, name: "Security: what is promised, and how it is checked" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Table: Promise, Checked by" })).toBeVisible();
  await page.screenshot({ path: "e2e/artifacts/docs-security-top.png" });
});
