import { createHash } from "node:crypto";
import { expect, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { pageWithAuthenticator, snap } from "./helpers";
import { E2E_SETUP_TOKEN } from "./setup-token";
import { startFakeResend } from "../test/helpers/fake-resend";
import { composeMime } from "../test/helpers/mime";

// The whole mail loop, through Resend (a local fake of its HTTP API on PORT + 51; the server
// sends with RESEND_API_KEY, as production does): a customer writes with a file; the agent
// drafts a reply; the owner edits it in the web app; the agent's send is held for a person; the
// owner approves; exactly the approved bytes go out, once, threaded under the customer's
// message; and the customer's next reply reads, extracted, as only its new lines. Then, under a
// mail rule, a held draft with a file and a Bcc is edited and approved and sent on its own page:
// the edit cancels the held approval, and the edited bytes leave with the file and the Bcc.
test.describe.configure({ mode: "serial" });

const INBOUND = { authorization: "Bearer e2e-inbound-secret-0123456789", "content-type": "message/rfc822" };
let resend: Awaited<ReturnType<typeof startFakeResend>>;
let owner: BrowserContext;
let page: Page;
let auth: Record<string, string>;
let inbox: { id: string; address: string };
let received: { id: string; thread_id: string; message_id: string };
let sentMessage: { id: string; message_id: string; approval_id: string };

test.beforeAll(async ({ browser }) => {
  resend = await startFakeResend({ port: Number(process.env.E2E_PORT ?? 3217) + 51 });
  owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await pageWithAuthenticator(owner);
});

test.afterAll(async () => {
  await owner?.close();
  await resend?.close();
});

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const message = async (request: APIRequestContext, id: string) => (await request.get(`/api/v1/messages/${id}`, { headers: auth })).json();

test("the owner sets up the workspace; a customer writes to the agent's inbox with a file", async ({ request }) => {
  await page.goto(`/setup?token=${E2E_SETUP_TOKEN}`);
  await page.getByLabel("Workspace name").fill("Acme Support");
  await page.getByLabel("Your name").fill("Ada Owner");
  await page.getByLabel("Email").fill("ada@acme-e2e.com");
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
  auth = { authorization: `Bearer ${(await page.getByTestId("new-api-key").textContent())!.trim()}` };
  const made = await request.post("/api/v1/inboxes", { headers: auth, data: { username: "billing-agent", display_name: "Acme Support" } });
  expect(made.status(), await made.text()).toBe(201);
  inbox = await made.json();

  const raw = await composeMime({
    from: "Bob Customer <bob@client.example.com>",
    to: inbox.address,
    subject: "Invoice 4471 is wrong",
    text: "Hello,\n\nThe attached invoice charges us twice for March. Can you fix it?\n\nBob",
    messageId: "<invoice-4471@client.example.com>",
    attachments: [{ filename: "invoice-4471.pdf", content: Buffer.from("%PDF-1.4\n% invoice 4471\n%%EOF\n"), contentType: "application/pdf" }],
  });
  const delivered = await request.post("/api/inbound/raw", { headers: INBOUND, data: raw });
  expect(delivered.status()).toBe(200);
  const { message_id } = (await delivered.json()).deliveries[0];
  received = await message(request, message_id);
  expect(received).toMatchObject({ message_id: "<invoice-4471@client.example.com>", attachments: [expect.objectContaining({ filename: "invoice-4471.pdf" })] });
});

test("the agent drafts a reply; the owner edits it in the web app; the agent's send waits for a person", async ({ request }) => {
  const created = await request.post(`/api/v1/inboxes/${inbox.id}/drafts`, {
    headers: auth,
    data: { kind: "reply", in_reply_to: received.id, text: "Hello Bob,\n\nWe will refund the double charge.\n\nAcme Support" },
  });
  expect(created.status()).toBe(201);
  const draft = await created.json();
  expect(draft).toMatchObject({ kind: "reply", subject: "Re: Invoice 4471 is wrong", to: ["bob@client.example.com"] });

  await page.goto(`/inboxes/${inbox.id}`);
  await page.getByTestId("draft-list").getByRole("link", { name: "Re: Invoice 4471 is wrong" }).click();
  await page.getByLabel("Text").fill("Hello Bob,\n\nWe refunded the double charge for March (120 EUR) today.\n\nAcme Support");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status")).toContainText("version 2");
  await snap(page, "mail-loop-draft-edited");

  const send = await request.post(`/api/v1/drafts/${draft.id}/send`, { headers: auth, data: { require_approval: true } });
  expect(send.status()).toBe(202);
  sentMessage = await send.json();
  expect(sentMessage).toMatchObject({ status: "pending_approval", approval_id: expect.stringMatching(/^appr_/) });
  // The reply has not reached Resend (the owner's "Approval needed" notice has).
  expect(resend.sent.filter((s) => s.body.subject === "Re: Invoice 4471 is wrong")).toHaveLength(0);
  expect(resend.sent.map((s) => s.body.subject)).toContain("Approval needed: Send “Re: Invoice 4471 is wrong” to bob@client.example.com");
});

test("the owner approves; exactly the approved bytes leave through Resend, once, threaded under the customer's mail", async ({ request }) => {
  await page.goto("/approvals");
  const card = page.getByTestId("pending-approval").filter({ hasText: "Re: Invoice 4471 is wrong" });
  await expect(card.getByTestId("held-subject")).toHaveText("Re: Invoice 4471 is wrong");
  const shownSource = (await card.getByTestId("held-message-source").textContent())!;
  expect(shownSource).toContain("120 EUR");
  const action = JSON.parse((await card.getByTestId("approval-action").textContent())!);
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(card).toHaveCount(0);

  const sent = await poll(() => message(request, sentMessage.id), (m) => m.status === "sent");
  expect(sent).toMatchObject({ status: "sent", in_reply_to: "<invoice-4471@client.example.com>", thread_id: received.thread_id });
  const raw = Buffer.from(await (await request.get(`/api/v1/messages/${sentMessage.id}/raw`, { headers: auth })).body());
  expect(createHash("sha256").update(raw).digest("hex")).toBe(action.rfc822_sha256);

  // Once, even after the engine had time to try again.
  await new Promise((r) => setTimeout(r, 2_000));
  const out = resend.sent.filter((s) => s.body.subject === "Re: Invoice 4471 is wrong");
  expect(out).toHaveLength(1);
  const email = out[0]!.body;
  expect(email.to).toEqual(["bob@client.example.com"]);
  // What Resend was given is what the person approved: the text of those bytes, and their threading headers.
  expect(email.text?.replace(/\r\n/g, "\n")).toBe(sent.text.replace(/\r\n/g, "\n"));
  expect(email.text).toContain("We refunded the double charge for March (120 EUR) today.");
  expect(email.headers?.["In-Reply-To"] ?? email.headers?.["in-reply-to"]).toBe("<invoice-4471@client.example.com>");
  expect(email.headers?.["References"] ?? email.headers?.["references"]).toContain("<invoice-4471@client.example.com>");
  expect(email.headers?.["Message-ID"] ?? email.headers?.["message-id"]).toBe(sent.message_id);
});

test("the customer's next reply threads under it and reads as only its new lines", async ({ request }) => {
  const sent = await message(request, sentMessage.id);
  const quoted = sent.text.split(/\r?\n/).map((l: string) => `> ${l}`).join("\n");
  const raw = await composeMime({
    from: "Bob Customer <bob@client.example.com>",
    to: inbox.address,
    subject: "Re: Invoice 4471 is wrong",
    text: `Great, thank you! The refund arrived.\n\nOn Mon, 5 Jan 2026 at 10:00, Acme Support <${inbox.address}> wrote:\n${quoted}\n`,
    messageId: "<invoice-4471-thanks@client.example.com>",
    inReplyTo: sent.message_id,
    references: [received.message_id, sent.message_id],
  });
  const delivered = await request.post("/api/inbound/raw", { headers: INBOUND, data: raw });
  expect(delivered.status()).toBe(200);
  const reply = await message(request, (await delivered.json()).deliveries[0].message_id);
  expect(reply.thread_id).toBe(received.thread_id);
  expect(reply.extracted_text.trim()).toBe("Great, thank you! The refund arrived.");
  expect(reply.text).toContain("We refunded the double charge");

  await page.goto(`/inboxes/${inbox.id}/threads/${received.thread_id}`);
  await expect(page.getByText("Great, thank you! The refund arrived.").first()).toBeVisible();
  await expect(page.getByRole("link", { name: /invoice-4471\.pdf/ })).toBeVisible();
  await snap(page, "mail-loop-thread");
});

test("a held draft with a file and a Bcc: the owner edits it and approves and sends it on the draft's page; the edited bytes leave, and the receipt binds them", async ({ request }) => {
  // From now on, the agent's mail needs a person.
  await page.goto("/approvals/policies");
  await page.getByLabel("Name").fill("Agent mail");
  await page.getByLabel("Action class").fill("email.send");
  await page.getByRole("button", { name: "Add rule" }).click();
  await expect(page.getByRole("status").first()).toContainText("Agent mail");

  const pdf = Buffer.from("%PDF-1.4\n% invoice 4471, corrected\n%%EOF\n");
  const created = await request.post(`/api/v1/inboxes/${inbox.id}/drafts`, {
    headers: auth,
    data: {
      kind: "reply",
      in_reply_to: received.id,
      bcc: ["audit@acme-e2e.com"],
      text: "Hello Bob,\n\nThe corrected invoice is attached.\n\nAcme Support",
      attachments: [{ filename: "invoice-4471-corrected.pdf", content_base64: pdf.toString("base64") }],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const draft = await created.json();
  expect(draft.attachments).toEqual([{ id: expect.stringMatching(/^att_/), filename: "invoice-4471-corrected.pdf", content_type: "application/pdf", size: pdf.length, sha256: createHash("sha256").update(pdf).digest("hex") }]);
  // The agent reads its draft's file back over the API, as stored.
  const file = await request.get(`/api/v1/drafts/${draft.id}/attachments/${draft.attachments[0].id}`, { headers: auth });
  expect(file.headers()["content-type"]).toBe("application/pdf");
  expect(Buffer.from(await file.body()).equals(pdf)).toBe(true);
  const held = await request.post(`/api/v1/drafts/${draft.id}/send`, { headers: auth, data: {} });
  expect(held.status(), await held.text()).toBe(202);
  const first = await held.json();

  // The draft's page shows the approval it waits for and its file; saving an edit cancels that approval.
  await page.goto(`/inboxes/${inbox.id}/drafts/${draft.id}`);
  await expect(page.getByTestId("draft-approval")).toContainText(first.approval_id);
  await expect(page.getByTestId("draft-attachments").getByRole("link", { name: "invoice-4471-corrected.pdf" })).toBeVisible();
  await page.getByLabel("Text").fill("Hello Bob,\n\nThe corrected invoice (March charged once) is attached.\n\nAcme Support");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").first()).toContainText("Saved");
  expect((await message(request, first.id)).status).toBe("discarded");
  expect((await (await request.get(`/api/v1/approvals/${first.approval_id}`, { headers: auth })).json()).status).toBe("cancelled");

  await page.reload();
  await snap(page, "mail-loop-draft-approve-and-send");
  await page.getByRole("button", { name: "Approve and send" }).click();
  const sentDraft = await poll(
    async () => (await request.get(`/api/v1/drafts/${draft.id}`, { headers: auth })).json(),
    (d) => d.status === "sent" && d.message_id !== first.id,
  );
  const sent = await poll(() => message(request, sentDraft.message_id), (m) => m.status === "sent");
  expect(sent.bcc).toEqual([{ name: null, email: "audit@acme-e2e.com" }]);
  const approval = await (await request.get(`/api/v1/approvals/${sentDraft.approval_id}`, { headers: auth })).json();
  expect(approval.status).toBe("approved");
  const raw = Buffer.from(await (await request.get(`/api/v1/messages/${sent.id}/raw`, { headers: auth })).body());
  expect(createHash("sha256").update(raw).digest("hex")).toBe(approval.action.rfc822_sha256);
  expect(raw.toString("latin1")).not.toContain("audit@acme-e2e.com");

  const out = resend.sent.filter((s) => s.body.text?.includes("March charged once"));
  expect(out).toHaveLength(1);
  expect(out[0]!.body).toMatchObject({ to: ["bob@client.example.com"], bcc: ["audit@acme-e2e.com"], attachments: [{ filename: "invoice-4471-corrected.pdf", content: pdf.toString("base64"), content_type: "application/pdf" }] });
  expect(resend.sent.filter((s) => s.body.text?.includes("The corrected invoice is attached."))).toHaveLength(0);
});
