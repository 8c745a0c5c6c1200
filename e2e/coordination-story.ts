import { expect, test, type Page } from "@playwright/test";
import { snap } from "./helpers";

// The coordination primitives in the web app, continuing the web-app story (its signed-in owner
// and its ops agent's key): the seeds' staging scenario with a hold that waits for a person past
// its TTL, then the Leases page, who handles what in an inbox, ceilings and the preemption floor.

type Story = { page: Page; agentAuth: Record<string, string> };

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** Desktop and phone-width screenshots of the page as it is now. */
async function snapBoth(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await snap(page, name);
  await page.setViewportSize(PHONE);
  await snap(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** A new agent with its own key, made by the owner in the web app. */
async function agentWithKey(page: Page, name: string): Promise<Record<string, string>> {
  await page.goto("/agents");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("status").first()).toContainText(`Agent ${name} created`);
  await page.goto("/keys");
  await page.getByLabel("Name (optional)").fill(`${name} key`);
  await page.getByLabel("Agent").selectOption({ label: name });
  await page.getByRole("button", { name: "Create API key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  return { authorization: `Bearer ${key}` };
}

export function coordinationStory(story: () => Story) {
  let testerAuth: Record<string, string>;

  test("the staging scenario: a hold waits for the owner past its TTL, another agent is refused, approving in the browser commits it", async ({ request }) => {
    const { page, agentAuth } = story();
    await page.setViewportSize(DESKTOP);
    testerAuth = await agentWithKey(page, "staging-tester");

    const cal = await (await request.post("/api/v1/calendars", { headers: agentAuth, data: { name: "staging (migrations)" } })).json();
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const slot = { start_time: `${day}T13:00:00Z`, end_time: `${day}T14:00:00Z`, priority: 70 };
    const held = await request.post(`/api/v1/calendars/${cal.id}/holds`, { headers: agentAuth, data: { ...slot, hold_ttl_seconds: 5, metadata: { migration: "0042" } } });
    expect(held.status()).toBe(201);
    const hold = await held.json();
    const asked = await request.post("/api/v1/approvals", {
      headers: agentAuth,
      data: { summary: "Run migration 0042 on staging", evidence: { migration: "0042", downtime: "none expected" }, hold_ids: [hold.id] },
    });
    expect(asked.status()).toBe(201);
    const approval = await asked.json();
    expect(approval.holds).toEqual([expect.objectContaining({ hold_id: hold.id, status: "held" })]);

    // The hold's own TTL passes while the owner has not decided yet.
    await page.waitForTimeout(Math.max(0, Date.parse(hold.expires_at) - Date.now()) + 1000);
    const stillHeld = await (await request.get(`/api/v1/holds/${hold.id}`, { headers: agentAuth })).json();
    expect(stillHeld).toMatchObject({ status: "held", approval_id: approval.id });
    const refused = await request.post(`/api/v1/calendars/${cal.id}/holds`, { headers: testerAuth, data: { ...slot, hold_ttl_seconds: 60 } });
    expect(refused.status()).toBe(409);
    expect((await refused.json()).code).toBe("hold_conflict");

    // Binding keeps the hold only to the hold TTL cap; a person keeps it until the approval expires (audited).
    expect(Date.parse(approval.holds[0].expires_at)).toBeLessThan(Date.parse(approval.expires_at));
    await page.goto(`/approvals/${approval.id}`);
    await page.getByRole("button", { name: "Keep the holds until the approval expires" }).click();
    await expect.poll(async () => (await (await request.get(`/api/v1/holds/${hold.id}`, { headers: agentAuth })).json()).expires_at).toBe(approval.expires_at);
    await expect(page.getByRole("button", { name: "Keep the holds until the approval expires" })).toHaveCount(0);

    const poll = request.get(`/api/v1/approvals/${approval.id}?wait=30`, { headers: agentAuth, timeout: 45_000 });
    await page.goto("/approvals");
    const card = page.getByTestId("pending-approval").filter({ hasText: "Run migration 0042 on staging" });
    await expect(card.getByTestId(`bound-hold-${hold.id}`)).toContainText("staging (migrations)");
    await expect(card.getByTestId(`bound-hold-${hold.id}`)).toContainText("held");
    await expect(card.getByTestId("on-approve")).toContainText("Approving commits this hold");
    await card.scrollIntoViewIfNeeded();
    await snapBoth(page, "approval-bound-holds");
    await card.getByRole("button", { name: "Approve" }).click();
    await expect(card).toHaveCount(0);

    const decided = await (await poll).json();
    expect(decided.status).toBe("approved");
    expect(decided.holds[0]).toMatchObject({ hold_id: hold.id, status: "committed", event_ids: [expect.stringMatching(/^evt_/)] });
    expect((await (await request.get(`/api/v1/holds/${hold.id}`, { headers: agentAuth })).json()).status).toBe("committed");
    await page.goto("/approvals/history");
    await expect(page.getByRole("row").filter({ hasText: "Run migration 0042 on staging" })).toContainText(`${hold.id}: committed`);
    await page.goto(`/calendars/${cal.id}?view=day&date=${day}`);
    await expect(page.getByTestId("timeline-event")).toHaveCount(1);
  });

  test("the Leases page shows who holds which resource, since and until when; an admin releases one", async ({ request }) => {
    const { page, agentAuth } = story();
    const lease = await (await request.post("/api/v1/leases", { headers: agentAuth, data: { resource: "deploy:staging", ttl_seconds: 600, metadata: { pipeline: 17 } } })).json();
    expect(lease.fencing_token).toBe(1);
    const taken = await request.post("/api/v1/leases", { headers: testerAuth, data: { resource: "deploy:staging", ttl_seconds: 60 } });
    expect(taken.status()).toBe(409);
    const short = await (await request.post("/api/v1/leases", { headers: testerAuth, data: { resource: "repo:web", ttl_seconds: 1 } })).json();
    await page.waitForTimeout(1200);
    expect((await (await request.get(`/api/v1/leases/${short.id}`, { headers: testerAuth })).json()).status).toBe("expired");

    await page.getByRole("link", { name: "Leases" }).first().click();
    await expect(page).toHaveURL(/\/leases$/);
    const row = page.getByTestId("lease-deploy:staging");
    await expect(row).toContainText("ops-agent");
    await expect(row).toContainText("fencing token 1");
    await expect(page.getByTestId("lease-repo:web")).toHaveCount(0);
    await expect(page.getByTestId(`ended-lease-${short.id}`)).toContainText("expired");
    await snapBoth(page, "leases");

    await row.getByRole("button", { name: "Release" }).click();
    // Released: the row leaves "Held now" and the lease is in the history, released.
    await expect(page.getByTestId("lease-deploy:staging")).toHaveCount(0);
    await expect(page.getByTestId(`ended-lease-${lease.id}`)).toContainText("released");
    const next = await (await request.post("/api/v1/leases", { headers: testerAuth, data: { resource: "deploy:staging", ttl_seconds: 60 } })).json();
    expect(next.fencing_token).toBe(2);
    const stale = await (await request.post("/api/v1/leases/verify", { headers: testerAuth, data: { resource: "deploy:staging", fencing_token: 1 } })).json();
    expect(stale).toMatchObject({ valid: false, newest_fencing_token: 2 });
  });

  test("the inbox page shows who handles which received message", async ({ request }) => {
    const { page, agentAuth } = story();
    const raw = ["From: Customer <customer@outside.test>", "To: ops@agents.localhost", "Subject: Refund for order 8812", "Message-ID: <refund-8812@outside.test>", "", "Please refund order 8812."].join("\r\n");
    const inbound = await request.post("/api/inbound/raw", { headers: { authorization: "Bearer e2e-inbound-secret-0123456789", "content-type": "message/rfc822" }, data: raw });
    expect(inbound.status()).toBeLessThan(300);
    const { deliveries } = await inbound.json();
    const messageId = deliveries[0].message_id as string;
    const inboxId = (await (await request.get(`/api/v1/messages/${messageId}`, { headers: agentAuth })).json()).inbox_id as string;
    const free = await (await request.get(`/api/v1/inboxes/${inboxId}/messages?claimable=true`, { headers: agentAuth })).json();
    expect(free.data.map((m: { id: string }) => m.id)).toContain(messageId);
    const claim = await request.post(`/api/v1/messages/${messageId}/claim`, { headers: agentAuth, data: { ttl_seconds: 600 } });
    expect(claim.status()).toBe(200);

    await page.goto(`/inboxes/${inboxId}`);
    const row = page.getByTestId(`claim-${messageId}`);
    await expect(row).toContainText("claimed");
    await expect(row).toContainText("ops-agent");
    await page.getByRole("heading", { name: "Who handles what" }).scrollIntoViewIfNeeded();
    await snapBoth(page, "inbox-claims");
    const claimId = (await claim.json()).id as string;
    expect((await request.post(`/api/v1/messages/${messageId}/complete`, { headers: agentAuth, data: { claim_id: claimId } })).status()).toBe(200);
    await page.reload();
    await expect(page.getByTestId(`claim-${messageId}`)).toContainText("handled");
  });

  test("an admin sets an agent's priority ceiling and the workspace's preemption floor", async ({ request }) => {
    const { page } = story();
    await page.goto("/agents");
    await page.getByLabel("Highest priority staging-tester may ask for").fill("30");
    await page.getByLabel("Highest priority staging-tester may ask for").locator("xpath=ancestor::form").getByRole("button", { name: "Set ceiling" }).click();
    await expect(page.getByTestId("ceiling-staging-tester")).toHaveText("30");
    const cal = await (await request.post("/api/v1/calendars", { headers: testerAuth, data: { name: "ceiling test" } })).json();
    const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const over = await request.post(`/api/v1/calendars/${cal.id}/holds`, { headers: testerAuth, data: { start_time: `${day}T09:00:00Z`, end_time: `${day}T10:00:00Z`, priority: 31 } });
    expect(over.status()).toBe(403);
    expect((await over.json()).code).toBe("priority_above_ceiling");
    await snapBoth(page, "agents-ceiling");

    await page.goto("/settings");
    await page.getByLabel("Holds below this priority never preempt (0: off)").fill("20");
    await page.getByLabel("Holds below this priority never preempt (0: off)").locator("xpath=ancestor::form").getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByTestId("preempt-floor")).toContainText("below 20 never preempt");
    // Approval limits: how many approvals one agent may have waiting for people at once.
    await page.getByLabel("Pending approvals per agent").fill("5");
    await page.getByLabel("Pending approvals per agent").locator("xpath=ancestor::form").getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByTestId("max-pending-approvals")).toContainText("at most 5 approvals pending at once");
    await page.getByTestId("preempt-floor").scrollIntoViewIfNeeded();
    await snapBoth(page, "settings-hold-priorities");
  });
}
