import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { E2E_SETUP_TOKEN } from "./setup-token";
import { startFakeMicrosoft, type FakeMicrosoft } from "../test/fakes/microsoft-graph-server";

// An admin connects a Microsoft 365 account in Chromium (through the fake identity platform's
// consent redirect), links a calendar to an Outlook calendar, and Outlook busy time blocks an
// agent's hold. Its own server (first run) with Microsoft pointed at the fake on PORT + 41.
test.describe.configure({ mode: "serial" });

let owner: BrowserContext;
let page: Page;
let fake: FakeMicrosoft;

test.beforeAll(async ({ browser }) => {
  fake = await startFakeMicrosoft({ port: Number(process.env.E2E_PORT ?? 3217) + 41, email: "ada@contoso.example" });
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(owner);
});

test.afterAll(async () => {
  await owner?.close();
  await fake?.close();
});

test("Microsoft 365: an admin connects an account and links a calendar; Outlook busy time blocks an agent's hold and shows on the timeline", async () => {
  await page.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await page.getByLabel("Workspace name").fill("Contoso Ops");
  await page.getByLabel("Your name").fill("Ada Admin");
  await page.getByLabel("Email").fill("ada@contoso.example");
  await page.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  // An agent with a key, from the web app.
  await page.goto("/agents");
  await page.getByLabel("Name").fill("scheduler");
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("status")).toContainText("Agent scheduler created");
  await page.goto("/keys");
  await page.getByLabel("Name (optional)").fill("scheduler key");
  await page.getByLabel("Agent").selectOption({ label: "scheduler" });
  await page.getByRole("button", { name: "Create API key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  const auth = { authorization: `Bearer ${key}` };

  const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  fake.addEvent(fake.primaryId, { id: "dentist1", subject: "Dentist", start: { dateTime: `${day}T10:00:00.0000000`, timeZone: "UTC" }, end: { dateTime: `${day}T11:00:00.0000000`, timeZone: "UTC" }, showAs: "oof" });
  fake.addEvent(fake.primaryId, { id: "lunch1", subject: "Lunch (free)", start: { dateTime: `${day}T12:00:00.0000000`, timeZone: "UTC" }, end: { dateTime: `${day}T13:00:00.0000000`, timeZone: "UTC" }, showAs: "free" });
  const calendar = await (await page.request.post("/api/v1/calendars", { headers: auth, data: { name: "Ada's calendar" } })).json();

  await page.getByRole("link", { name: "Microsoft 365" }).first().click();
  await page.getByRole("button", { name: "Connect Microsoft account" }).click();
  // Off to (the fake) Microsoft sign-in and back with a code.
  await expect(page.getByRole("status")).toContainText("Connected ada@contoso.example");
  await page.getByLabel("AgentDraft calendar").selectOption({ label: "Ada's calendar" });
  await page.getByLabel("Outlook calendar").selectOption({ label: "Calendar (default)" });
  await page.getByRole("button", { name: "Link" }).click();
  const link = page.getByTestId("microsoft-link").filter({ hasText: "Ada's calendar" });
  await expect(link).toBeVisible();
  await link.getByRole("button", { name: /Sync now/ }).click();
  await expect(link).toContainText("in sync");
  await snap(page, "microsoft");

  // Out of office blocks; free does not. Only when, never what.
  const refused = await page.request.post(`/api/v1/calendars/${calendar.id}/holds`, { headers: auth, data: { start_time: `${day}T10:30:00Z`, end_time: `${day}T11:30:00Z`, priority: 100, hold_ttl_seconds: 60 } });
  expect(refused.status()).toBe(409);
  const problem = await refused.json();
  expect(problem.conflicts).toEqual([expect.objectContaining({ type: "external_busy", source: "microsoft" })]);
  expect(JSON.stringify(problem)).not.toContain("Dentist");
  const granted = await page.request.post(`/api/v1/calendars/${calendar.id}/holds`, { headers: auth, data: { start_time: `${day}T12:00:00Z`, end_time: `${day}T13:00:00Z`, hold_ttl_seconds: 60 } });
  expect(granted.status()).toBe(201);

  await page.goto(`/calendars/${calendar.id}?view=day&date=${day}`);
  await expect(page.getByText("Busy in Outlook").first()).toBeVisible();
  await snap(page, "calendar-outlook-busy");
});
