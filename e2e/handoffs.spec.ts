import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { createAgentDraftClient, PermanentFailure, unwrap, type AgentDraftClient } from "../sdk/src/index";
import { E2E_SETUP_TOKEN } from "./setup-token";

// Two scripted agents hand work to each other over the HTTP API with their own keys, one worker
// crashes mid-run, a sub-task dies; the owner reads the whole story on the trace page.
test.describe.configure({ mode: "serial" });

let owner: BrowserContext;
let page: Page;
let baseUrl: string;

test.beforeAll(async ({ browser, baseURL }) => {
  baseUrl = baseURL!;
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(owner);
});

test.afterAll(async () => {
  await owner?.close();
});

async function agentWithKey(name: string): Promise<{ id: string; key: string }> {
  await page.goto("/agents");
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("status")).toContainText(`Agent ${name} created`);
  await page.goto("/keys");
  await page.getByLabel("Name (optional)").fill(`${name} key`);
  await page.getByLabel("Agent").selectOption({ label: name });
  await page.getByRole("button", { name: "Create API key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  const me = await (await page.request.get("/api/v1/me", { headers: { authorization: `Bearer ${key}` } })).json();
  return { id: me.agent.id, key };
}

const TRACE = "trace-e2e-launch";

test("two agents hand off work over the API; the owner reads the whole story on the trace page", async () => {
  await page.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await page.getByLabel("Workspace name").fill("Launch Ops");
  await page.getByLabel("Your name").fill("Olive Owner");
  await page.getByLabel("Email").fill("olive@example.test");
  await page.getByRole("button", { name: "Create workspace and passkey" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  const plannerAgent = await agentWithKey("planner");
  const researcherAgent = await agentWithKey("researcher");
  const planner = createAgentDraftClient({ apiKey: plannerAgent.key, baseUrl, traceId: TRACE });
  const researcher: AgentDraftClient = createAgentDraftClient({ apiKey: researcherAgent.key, baseUrl });
  const plannerInbox = unwrap(await planner.POST("/v1/inboxes", { body: { username: "planner" } }));
  const researcherInbox = unwrap(await researcher.POST("/v1/inboxes", { body: { username: "researcher" } }));

  // The planner hands the research over (keyed by its own task id: a retry is the same handoff).
  const root = await planner.handoffs.send({ to_agent_id: researcherAgent.id, type: "launch.research", body: { product: "Atlas v2", due: "Friday" } }, { idempotencyKey: "task-1:research" });
  expect((await planner.handoffs.send({ to_agent_id: researcherAgent.id, type: "launch.research", body: { product: "Atlas v2", due: "Friday" } }, { idempotencyKey: "task-1:research" })).id).toBe(root.id);

  // Worker 1 claims it with a short claim and crashes: it never answers.
  const crashed = unwrap(await researcher.POST("/v1/handoffs/{id}/claim", { params: { path: { id: root.id } }, body: { ttl_seconds: 1, worker: "researcher-1" } }));
  expect(crashed.attempt).toBe(1);
  await expect
    .poll(async () => unwrap(await researcher.GET("/v1/handoffs/{id}", { params: { path: { id: root.id } } })).status)
    .toBe("pending"); // the claim-expiry timer put it back

  // Worker 2 takes over: it reads the trace (nothing handed on yet), mails the planner, hands two sub-tasks back, notes why.
  const worked = await researcher.handoffs.workOnce(
    "launch.research",
    async (h, { client }) => {
      const graph = unwrap(await client.GET("/v1/traces/{trace_id}", { params: { path: { trace_id: h.trace_id } } }));
      expect(graph.handoffs.map((n) => n.id)).toEqual([h.id]);
      unwrap(await client.POST("/v1/inboxes/{id}/messages", { params: { path: { id: researcherInbox.id } }, body: { to: [plannerInbox.address], subject: "Atlas v2 research started", text: "Two sub-tasks coming your way." } }));
      await client.handoffs.send({ to_agent_id: plannerAgent.id, type: "launch.review", body: { draft: "Atlas v2 is faster" }, parent_id: h.id }, { idempotencyKey: `${h.id}:review` });
      await client.handoffs.send({ to_agent_id: plannerAgent.id, type: "launch.pricing", body: { market: "EU" }, parent_id: h.id, max_attempts: 1 }, { idempotencyKey: `${h.id}:pricing` });
      await client.audit.note({
        action: "agent.split_research",
        summary: "Split the launch research into a review and a pricing check, since the brief names both",
        trigger: { handoff_id: h.id, attempt: h.attempt },
        context: { product: "Atlas v2", due: "Friday" },
        model: { name: "research-model", prompt_version: "researcher-v4", input_tokens: 2210, output_tokens: 180 },
      });
      return { summary: "Review done, pricing failed" };
    },
    { worker: "researcher-2", ttlSeconds: 30 },
  );
  expect(worked?.error).toBeUndefined();

  // The planner works the review, and gives up on the pricing (dead at once).
  const review = await planner.handoffs.workOnce("launch.review", async () => ({ approved: true }), { worker: "planner-1" });
  expect(review?.result).toEqual({ approved: true });
  const pricing = await planner.handoffs.workOnce("launch.pricing", async () => {
    throw new PermanentFailure("no EU price list in the brief");
  });
  expect(pricing?.error).toBeInstanceOf(PermanentFailure);
  const done = unwrap(await planner.GET("/v1/handoffs/{id}", { params: { path: { id: root.id } } }));
  expect(done).toMatchObject({ status: "completed", attempt: 2, result: { summary: "Review done, pricing failed" } });

  // The owner: the overview flags the dead handoff, the Handoffs page lists it, the trace tells the story.
  await page.goto("/overview");
  await expect(page.getByText("1 handoff is dead")).toBeVisible();
  await page.getByRole("link", { name: "Handoffs" }).first().click();
  await expect(page.getByTestId("dead-handoffs")).toContainText("launch.pricing");
  await expect(page.getByTestId("dead-handoffs")).toContainText("no EU price list in the brief");
  await snap(page, "handoffs");
  await page.getByTestId("dead-handoffs").getByRole("link", { name: "Open trace" }).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${TRACE}`));
  await expect(page.getByRole("heading", { name: `Trace ${TRACE}` })).toBeVisible();

  const tree = page.getByTestId("handoff-tree");
  await expect(tree.locator("li")).toHaveCount(3);
  await expect(tree.locator("li").nth(0)).toContainText("launch.research");
  await expect(tree.locator("li").nth(0)).toContainText("attempt 2/3");
  await expect(tree.locator("li[data-status=dead]")).toContainText("launch.pricing");
  await expect(page.getByTestId("trace-dead")).toContainText("1 dead handoff");
  const notes = page.getByRole("region", { name: "Why the agents acted" });
  await expect(notes.getByText("Split the launch research into a review and a pricing check")).toBeVisible();
  await expect(notes.getByText("prompt researcher-v4, 2210 in / 180 out tokens")).toBeVisible();
  const timeline = page.getByTestId("trace-timeline");
  for (const text of ["handoff.claim_expired", "handoff.claimed", "Mail sent: Atlas v2 research started", "Mail received: Atlas v2 research started", "handoff.dead", "handoff.completed"]) {
    await expect(timeline.getByText(text, { exact: false }).first()).toBeVisible();
  }
  await snap(page, "trace");

  // Each record links to its own page: the mail opens in the recipient's thread.
  await timeline.getByRole("link", { name: "Mail received: Atlas v2 research started" }).click();
  await expect(page.getByRole("heading", { name: "Atlas v2 research started" }).first()).toBeVisible();
  await page.goBack();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByTestId("handoff-tree")).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await snap(page, "trace-phone");
});
