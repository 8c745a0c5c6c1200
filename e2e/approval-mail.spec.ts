import { createHash } from "node:crypto";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { E2E_SETUP_TOKEN } from "./setup-token";

// Mail that waits for a person, in order on one fresh database: the owner signs up with a
// passkey and makes the agent's key; the agent sends with require_approval; the owner sees the
// exact message on the approval page and approves; what is captured is byte for byte what was
// shown; a second message is denied and nothing is sent.
test.describe.configure({ mode: "serial" });

let owner: BrowserContext;
let page: Page;
let auth: Record<string, string>;
let inbox: { id: string; address: string };

test.beforeAll(async ({ browser }) => {
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(owner);
});

test.afterAll(async () => {
  await owner?.close();
});

test("the owner creates the workspace with a passkey and gives the agent a key and an inbox", async ({ request }) => {
  await page.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await page.getByLabel("Workspace name").fill("Acme Support");
  await page.getByLabel("Your name").fill("Ada Owner");
  await page.getByLabel("Email").fill("ada@example.test");
  await page.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  await page.getByRole("link", { name: "Agents" }).first().click();
  await page.getByLabel("Name").fill("support-agent");
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("status")).toContainText("Agent support-agent created");
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Name (optional)").fill("support key");
  await page.getByLabel("Agent").selectOption({ label: "support-agent" });
  await page.getByRole("button", { name: "Create API key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  auth = { authorization: `Bearer ${key}` };
  const res = await request.post("/api/v1/inboxes", { headers: auth, data: { username: "refunds", display_name: "Acme Support" } });
  expect(res.status()).toBe(201);
  inbox = await res.json();
});

test("an agent's message waits; the owner sees exactly it, approves, and exactly those bytes are captured", async ({ request }) => {
  const send = await request.post(`/api/v1/inboxes/${inbox.id}/messages`, {
    headers: auth,
    data: {
      to: ["customer@client.test"],
      subject: "Your refund of 120 EUR",
      text: "Hello,\n\nWe refunded 120 EUR to your card. <script>alert('x')</script>\n\nAcme Support",
      html: '<p>Hello,</p><p>We refunded <b>120 EUR</b> to your card.</p><script>alert("x")</script><img src="https://tracker.client.test/p.gif">',
      require_approval: true,
    },
  });
  expect(send.status()).toBe(202);
  const held = await send.json();
  expect(held).toMatchObject({ status: "pending_approval", approval_id: expect.stringMatching(/^appr_/) });

  const remote: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("http://localhost")) remote.push(r.url());
  });
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    void d.dismiss();
  });
  await page.goto("/approvals");
  const card = page.getByTestId("pending-approval").filter({ hasText: "Your refund of 120 EUR" });
  const shown = card.getByTestId("held-message");
  await expect(shown.getByTestId("held-to")).toHaveText("customer@client.test");
  await expect(shown.getByTestId("held-subject")).toHaveText("Your refund of 120 EUR");
  await expect(shown.getByTestId("held-message-id")).toHaveText(held.message_id);
  const frame = shown.locator("iframe");
  await expect(frame).toHaveAttribute("sandbox", "");
  await expect(frame.contentFrame().locator("body")).toContainText("We refunded 120 EUR to your card.");
  await expect(frame.contentFrame().locator("script, img")).toHaveCount(0);
  const source = (await shown.getByTestId("held-message-source").textContent())!;
  expect(source).toContain("Subject: Your refund of 120 EUR");
  const action = JSON.parse((await card.getByTestId("approval-action").textContent())!);
  expect(action).toMatchObject({ type: "email.send", message: held.id, to: ["customer@client.test"] });
  await snap(page, "approval-held-mail");
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await snap(page, "approval-held-mail-mobile");
  await page.setViewportSize({ width: 1280, height: 900 });

  // Nothing has gone out yet.
  expect((await (await request.get(`/api/v1/messages/${held.id}`, { headers: auth })).json()).status).toBe("pending_approval");

  await card.getByLabel("Note (optional)").fill("checked the order");
  await card.getByRole("button", { name: "Approve" }).click();
  // Decided: it leaves the queue.
  await expect(card).toHaveCount(0);

  const sent = await (await request.get(`/api/v1/messages/${held.id}`, { headers: auth })).json();
  expect(sent).toMatchObject({ status: "captured", approval_id: held.approval_id });
  const captured = Buffer.from(await (await request.get(`/api/v1/messages/${held.id}/raw`, { headers: auth })).body());
  // The page showed the source as text (HTML turns CRLF into LF); the hash binds the bytes themselves.
  expect(captured.toString("latin1").replace(/\r\n/g, "\n")).toBe(source.replace(/\r\n/g, "\n"));
  expect(createHash("sha256").update(captured).digest("hex")).toBe(action.rfc822_sha256);
  expect(dialogs).toBe(0);
  expect(remote).toEqual([]);
});

test("a denied message is discarded and nothing is sent", async ({ request }) => {
  const send = await request.post(`/api/v1/inboxes/${inbox.id}/messages`, {
    headers: auth,
    data: { to: ["everyone@client.test"], subject: "Forward of the customer list", text: "Attached: all customers.", require_approval: true },
  });
  expect(send.status()).toBe(202);
  const held = await send.json();
  await page.goto("/approvals");
  const card = page.getByTestId("pending-approval").filter({ hasText: "Forward of the customer list" });
  await expect(card.getByTestId("held-subject")).toHaveText("Forward of the customer list");
  await card.getByLabel("Reason (required to deny)").fill("never send the customer list");
  await card.getByRole("button", { name: "Deny" }).click();
  await expect(card).toHaveCount(0);

  expect((await (await request.get(`/api/v1/messages/${held.id}`, { headers: auth })).json()).status).toBe("discarded");
  const outbound = await (await request.get(`/api/v1/inboxes/${inbox.id}/messages?direction=outbound`, { headers: auth })).json();
  expect(outbound.data.map((m: { status: string }) => m.status).sort()).toEqual(["captured", "discarded"]);
  const audit = await (await request.get(`/api/v1/audit?resource_id=${held.id}`, { headers: auth })).json();
  expect(audit.data.map((e: { action: string }) => e.action)).not.toContain("email.sent");
});

test("decided approvals keep the action and the message in full: history links to a page that shows what was approved and sent", async ({ request }) => {
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    void d.dismiss();
  });
  await page.goto("/approvals/history");
  const row = page.getByRole("row").filter({ hasText: "Your refund of 120 EUR" });
  await expect(row.getByText("spent")).toBeVisible();
  await row.getByText("Action (email.send)").click();
  expect(JSON.parse((await row.getByTestId("history-action").textContent())!)).toMatchObject({ type: "email.send", to: ["customer@client.test"] });
  await row.getByRole("link", { name: /Your refund of 120 EUR/ }).click();
  await expect(page).toHaveURL(/\/approvals\/appr_/);

  const detail = page.getByTestId("approval-detail");
  await expect(detail.getByText("approved", { exact: true })).toBeVisible();
  const action = JSON.parse((await detail.getByTestId("approval-action").textContent())!);
  expect(action).toMatchObject({ type: "email.send", to: ["customer@client.test"], subject: "Your refund of 120 EUR" });
  await expect(detail.getByTestId("approval-consumed")).toContainText("spent at");
  // The evidence carries the agent's text, script tag and all: shown as text, never run.
  await expect(detail.getByTestId("evidence")).toContainText("<script>alert('x')</script>");
  await expect(detail.getByTestId("decisions")).toContainText("checked the order");
  const shown = detail.getByTestId("held-message");
  await expect(shown).toContainText("Message sent");
  const source = (await shown.getByTestId("held-message-source").textContent())!;
  const captured = Buffer.from(await (await request.get(`/api/v1/messages/${action.message}/raw`, { headers: auth })).body());
  expect(captured.toString("latin1").replace(/\r\n/g, "\n")).toBe(source.replace(/\r\n/g, "\n"));
  await expect(detail.getByTestId("receipt")).toBeAttached();

  await page.goto("/approvals/history");
  await page.getByRole("link", { name: /Forward of the customer list/ }).click();
  await expect(page.getByTestId("approval-detail").getByText("denied", { exact: true })).toBeVisible();
  await expect(page.getByTestId("held-message")).toContainText("discarded (never sent)");
  expect(JSON.parse((await page.getByTestId("approval-action").textContent())!)).toMatchObject({ subject: "Forward of the customer list" });
  await snap(page, "approval-detail-denied");
  expect(dialogs).toBe(0);
});

test("a draft for review: the owner edits it, sends it back with a note; the agent fixes it; the owner sends it, once", async ({ request }) => {
  const created = await request.post(`/api/v1/inboxes/${inbox.id}/drafts`, {
    headers: auth,
    data: { to: ["customer@client.test"], subject: "Your replacement order", text: "Hello,\n\nYour replacement ships on Monday.\n\nAcme Support" },
  });
  expect(created.status()).toBe(201);
  const draft = await created.json();

  await page.goto(`/inboxes/${inbox.id}`);
  await page.getByTestId("draft-list").getByRole("link", { name: "Your replacement order" }).click();
  await expect(page).toHaveURL(new RegExp(`/inboxes/${inbox.id}/drafts/${draft.id}$`));
  await page.getByLabel("Subject").fill("Your replacement order A-7");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status")).toContainText("version 2");

  await page.reload();
  await page.getByLabel("Note for the agent").fill("Say Tuesday: Monday is a holiday.");
  await page.getByRole("button", { name: "Send back to the agent" }).click();
  // The page now shows the draft as returned, with the note (the send-back form is gone).
  await expect(page.getByTestId("review-note")).toHaveText("Say Tuesday: Monday is a holiday.");
  await expect(page.getByTestId("draft-summary")).toContainText("returned");

  const returned = await (await request.get(`/api/v1/drafts/${draft.id}`, { headers: auth })).json();
  expect(returned).toMatchObject({ status: "returned", review_note: "Say Tuesday: Monday is a holiday.", subject: "Your replacement order A-7", version: 3 });
  const fixed = await request.patch(`/api/v1/drafts/${draft.id}`, { headers: { ...auth, "if-match": '"3"' }, data: { text: "Hello,\n\nYour replacement ships on Tuesday.\n\nAcme Support" } });
  expect(fixed.status()).toBe(200);

  await page.reload();
  await expect(page.getByTestId("draft-text")).toContainText("Tuesday");
  await page.getByRole("button", { name: "Send as written" }).click();
  await expect(page.getByTestId("draft-summary")).toContainText(/Sent as\s*message msg_/);
  const sent = await (await request.get(`/api/v1/drafts/${draft.id}`, { headers: auth })).json();
  expect(sent).toMatchObject({ status: "sent", message_id: expect.stringMatching(/^msg_/) });
  const message = await (await request.get(`/api/v1/messages/${sent.message_id}`, { headers: auth })).json();
  expect(message).toMatchObject({ subject: "Your replacement order A-7", text: expect.stringContaining("Tuesday") });
  const again = await request.post(`/api/v1/drafts/${draft.id}/send`, { headers: auth, data: {} });
  expect(again.status()).toBe(409);
});
