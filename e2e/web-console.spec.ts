import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { startWebhookInbox } from "./ops-agent";
import { E2E_SETUP_TOKEN } from "./setup-token";
import { onUtcDay, zoneOffset } from "../test/helpers/clock";

/** The first day (YYYY-MM-DD) at least a week ahead on which Berlin and New York both keep standard time. */
function winterDayAhead(): string {
  for (let days = 7; ; days++) {
    const noon = onUtcDay(days)(12);
    if (zoneOffset("Europe/Berlin", noon) === "GMT+01:00" && zoneOffset("America/New_York", noon) === "GMT-05:00") return noon.slice(0, 10);
  }
}

// The owner runs the product from the web app: webhook endpoints, inboxes, calendars with
// their time zones, releasing and cancelling from the timeline, in their own time zone.
// It starts from first run, so it has a server and database of its own (playwright.config.ts):
// a setup page that does not open is this story's failure, never a reason to skip it.
test.describe.configure({ mode: "serial" });

let owner: BrowserContext;
let page: Page;
let agentKey: string;

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Desktop and phone screenshots of the current page. */
async function snapBoth(name: string) {
  await snap(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await snap(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

test.beforeAll(async ({ browser }) => {
  owner = await browser.newContext({ viewport: DESKTOP, timezoneId: "Europe/Berlin" });
  page = await pageWithAuthenticator(owner);
});

test.afterAll(async () => {
  await owner?.close();
});

test("first run, an agent and its key", async ({ request }) => {
  await page.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  expect(new URL(page.url()).pathname, "the first-run page must open on this story's fresh database").toBe("/setup");
  await page.getByLabel("Workspace name").fill("Console Ops");
  await page.getByLabel("Your name").fill("Olu Owner");
  await page.getByLabel("Email").fill("olu@example.test");
  await page.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  await page.getByRole("link", { name: "Agents" }).first().click();
  await page.getByLabel("Name").fill("scheduler");
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("status")).toContainText("Agent scheduler created");
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page).toHaveURL(/\/keys$/);
  await page.getByLabel("Agent").selectOption({ label: "scheduler" });
  await page.getByRole("button", { name: "Create API key" }).click();
  agentKey = (await page.getByTestId("new-api-key").textContent())!.trim();
  expect((await request.get("/api/v1/me", { headers: { authorization: `Bearer ${agentKey}` } })).status()).toBe(200);
});

test("webhook endpoints: create with filters, secret once, test event in the log, rotate, disable and enable", async () => {
  const receiver = await startWebhookInbox();
  try {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await expect(page).toHaveURL(/\/webhooks$/);
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByLabel("Description (optional)").fill("laptop receiver");
    await page.getByLabel("hold.created").check();
    await page.getByLabel("hold.released").check();
    await page.getByLabel("scheduler").check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const secret = page.getByTestId("webhook-secret");
    await expect(secret).toHaveText(/^whsec_/);
    receiver.useSecret((await secret.textContent())!.trim());
    const row = page.getByRole("row").filter({ hasText: "laptop receiver" });
    await expect(row).toContainText("hold.created, hold.released");
    await expect(row).toContainText("scheduler");
    await snapBoth("webhooks");

    await row.getByRole("link").click();
    await expect(page).toHaveURL(/\/webhooks\/whe_/);
    await expect(page.getByRole("heading", { name: "Webhook endpoint" })).toBeVisible();
    await page.getByRole("button", { name: "Send a test event" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Test event sent" })).toBeVisible();
    await receiver.waitFor("webhook.test");
    await expect(async () => {
      await page.reload();
      const delivery = page.getByRole("row").filter({ hasText: "webhook.test" });
      await expect(delivery).toContainText("succeeded", { timeout: 1_000 });
      await expect(delivery.getByTestId("response-status")).toHaveText("204", { timeout: 1_000 });
      await expect(delivery).toContainText(" ms", { timeout: 1_000 });
    }).toPass();

    // Retry the delivery: sent again with the same webhook-id.
    await page.getByRole("button", { name: /^Retry delivery whd_/ }).first().click();
    await expect(page.getByRole("status").filter({ hasText: "will be attempted again now" })).toBeVisible();
    await page.getByRole("button", { name: "Retry all failed" }).click();
    await expect(page.getByRole("status").filter({ hasText: "No failed deliveries to retry" })).toBeVisible();

    await page.getByRole("button", { name: "Rotate secret" }).click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
    const rotated = (await page.getByTestId("webhook-secret").textContent())!.trim();
    receiver.useSecret(rotated);
    await snapBoth("webhook-endpoint");

    await page.getByRole("button", { name: "Disable" }).click();
    await expect(page.getByText("disabled by request")).toBeVisible();
    await page.getByRole("button", { name: "Enable" }).click();
    await expect(page.getByRole("button", { name: "Disable" })).toBeVisible();

    // Every change is in the audit trail with the member as actor.
    await page.getByRole("link", { name: "Audit trail" }).click();
    await expect(page).toHaveURL(/\/audit/);
    for (const action of ["webhook_endpoint.created", "webhook_endpoint.test_sent", "webhook_endpoint.secret_rotated", "webhook_delivery.retried", "webhook_endpoint.updated"]) {
      await expect(page.getByRole("row").filter({ hasText: action }).first()).toContainText("member");
    }
  } finally {
    await receiver.close();
  }
});

test("inboxes: create, set sender rules, delete with its mail", async ({ request }) => {
  await page.getByRole("link", { name: "Inboxes" }).click();
  await expect(page).toHaveURL(/\/inboxes$/);
  await page.getByLabel(/^Address/).fill("console-desk");
  await page.getByLabel("Display name (optional)").fill("Front desk");
  await page.getByRole("button", { name: "Create inbox" }).click();
  await expect(page.getByRole("status")).toContainText("Inbox console-desk@");
  await snapBoth("inboxes");
  await page.getByRole("link", { name: /^console-desk@/ }).click();
  await expect(page).toHaveURL(/\/inboxes\/inbox_/);
  await page.getByLabel(/^Block these senders/).fill("spam@example.com\n@junk.test");
  await page.getByLabel(/^Allow only these senders/).fill("");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Inbox settings saved" })).toBeVisible();
  const inboxes = await (await request.get("/api/v1/inboxes", { headers: { authorization: `Bearer ${agentKey}` } })).json();
  expect(inboxes.data[0]).toMatchObject({ address: expect.stringMatching(/^console-desk@/), block_senders: ["spam@example.com", "@junk.test"] });
  await page.reload();
  await expect(page.getByLabel(/^Block these senders/)).toHaveValue(/spam@example.com/);
  await page.getByText("Delete this inbox").click();
  await snapBoth("inbox-settings");
  await page.getByLabel("Type the address to confirm").fill("wrong@example.test");
  await page.getByRole("button", { name: "Delete inbox and its mail" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Type the inbox's address to confirm" })).toBeVisible();
  await page.getByLabel("Type the address to confirm").fill(inboxes.data[0].address);
  await page.getByRole("button", { name: "Delete inbox and its mail" }).click();
  await expect(page).toHaveURL(/\/inboxes$/);
  await expect(page.getByRole("link", { name: /^console-desk@/ })).toHaveCount(0);
});

test("calendars in the viewer's time zone; an admin releases a hold and cancels an event", async ({ request }) => {
  const auth = { authorization: `Bearer ${agentKey}` };
  await page.getByRole("link", { name: "Calendars" }).click();
  await expect(page).toHaveURL(/\/calendars$/);
  await page.getByLabel("Name").fill("Harbour room");
  await page.getByLabel("Time zone").fill("America/New_York");
  await page.getByRole("button", { name: "Create calendar" }).click();
  await expect(page.getByRole("status")).toContainText("Calendar Harbour room created");
  await page.getByRole("link", { name: "Harbour room" }).click();
  await expect(page).toHaveURL(/\/calendars\/cal_/);
  const calendarId = page.url().split("/calendars/")[1]!.split("?")[0]!;
  // 09:00-10:00 UTC is 10:00-11:00 in Berlin (the browser's zone) and 04:00-05:00 in New York, on a
  // day ahead when both keep standard time (winter).
  const day = winterDayAhead();
  const hold = await (await request.post(`/api/v1/calendars/${calendarId}/holds`, { headers: auth, data: { start_time: `${day}T09:00:00Z`, end_time: `${day}T10:00:00Z`, hold_ttl_seconds: 600 } })).json();
  const booked = await (await request.post(`/api/v1/calendars/${calendarId}/holds`, { headers: auth, data: { start_time: `${day}T13:00:00Z`, end_time: `${day}T14:00:00Z`, hold_ttl_seconds: 600 } })).json();
  const committed = await (await request.post(`/api/v1/holds/${booked.id}/commit`, { headers: auth })).json();

  await page.goto(`/calendars/${calendarId}?view=day&date=${day}`);
  await expect(page.getByText("Times in your time zone, Europe/Berlin; the calendar's is America/New_York.")).toBeVisible();
  await expect(page.getByTestId("timeline-hold")).toContainText("10:00–11:00");
  await expect(page.getByTestId("timeline-event")).toContainText("14:00–15:00");
  await snapBoth("calendar");
  await page.getByRole("link", { name: "Show in the calendar's time zone (America/New_York)" }).click();
  await expect(page.getByTestId("timeline-hold")).toContainText("04:00–05:00");
  await page.getByRole("link", { name: "Show in my time zone (Europe/Berlin)" }).click();

  await page.getByRole("button", { name: `Release hold ${hold.id}` }).click();
  await expect(page.getByTestId("timeline-hold")).toHaveCount(0);
  expect((await (await request.get(`/api/v1/holds/${hold.id}`, { headers: auth })).json()).status).toBe("released");
  const eventId = committed.event_ids[0];
  await page.getByRole("button", { name: `Cancel event ${eventId}` }).click();
  await expect(page.getByTestId("timeline-event")).toHaveCount(0);

  // Rename and move the calendar to Berlin: the zones agree, one note.
  await page.getByLabel("Name").fill("Harbour boardroom");
  await page.getByLabel("Time zone").fill("Europe/Berlin");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved: Harbour boardroom, times in Europe/Berlin" })).toBeVisible();
  await page.reload();
  await expect(page.getByText("Times in Europe/Berlin.")).toBeVisible();

  await page.getByRole("link", { name: "Audit trail" }).click();
  await expect(page).toHaveURL(/\/audit/);
  await expect(page.getByRole("row").filter({ hasText: "hold.released" }).first()).toContainText("member");
  await expect(page.getByRole("row").filter({ hasText: "event.cancelled" }).first()).toContainText("member");
});

test("times follow the browser's zone, or the member's setting", async () => {
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByTestId("time-zone-now")).toContainText("Europe/Berlin (your browser's)");
  await page.getByLabel("Show times in").selectOption("Asia/Tokyo");
  await page.getByRole("button", { name: "Save time zone" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Times are shown in Asia/Tokyo" })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("time-zone-now")).toContainText("Asia/Tokyo (your setting)");
  await expect(page.locator("time").first()).toContainText("GMT+9");
  await snapBoth("settings-time-zone");
  await page.getByLabel("Show times in").selectOption("");
  await page.getByRole("button", { name: "Save time zone" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Times follow your browser's time zone" })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("time-zone-now")).toContainText("Europe/Berlin (your browser's)");
});

test("the overview's charts, and the approval queue and overview update while open", async ({ request }) => {
  const auth = { authorization: `Bearer ${agentKey}` };
  await page.getByRole("link", { name: "Overview" }).first().click();
  await expect(page).toHaveURL(/\/overview$/);
  for (const chart of ["holds", "approvals", "decision-time", "deliveries", "mail"]) {
    await expect(page.getByTestId(`chart-${chart}`).getByRole("img")).toBeVisible();
  }
  await expect(page.getByTestId("chart-holds").getByRole("img")).toHaveAccessibleName(/Holds, per day for the last 30 days/);
  await expect(page.getByTestId("live-status")).toContainText("Live");
  await snapBoth("overview-charts");
  // No reload: an agent's request reaches the open overview (the approvals chart counts it).
  const approvalsChart = page.locator("#approvals-desc");
  const askedBefore = Number(/asked: ([\d,]+)/.exec((await approvalsChart.textContent()) ?? "")![1]!.replace(/,/g, ""));
  const asked = await request.post("/api/v1/approvals", { headers: auth, data: { summary: `Renew the staging domain ${Date.now()}`, evidence: { expires: "in 3 days" } } });
  expect(asked.status()).toBe(201);
  await expect(approvalsChart).toContainText(`asked: ${(askedBefore + 1).toLocaleString("en")},`);

  await page.getByRole("link", { name: "Approvals" }).first().click();
  await expect(page).toHaveURL(/\/approvals$/);
  await expect(page.getByTestId("live-status")).toContainText("Live");
  const summary = `Rotate the staging certificates ${Date.now()}`;
  const made = await request.post("/api/v1/approvals", { headers: auth, data: { summary, evidence: { expires: "in 3 days" } } });
  expect(made.status()).toBe(201);
  // No reload: the queue shows the new request by itself.
  await expect(page.getByText(summary)).toBeVisible();
  await snapBoth("approvals-live");
});
