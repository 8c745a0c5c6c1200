import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["customer.test", "team.test"];
import { composeMime } from "../../../test/helpers/mime";
import { getDb } from "../../../db/client";
import { attachmentBlobs, drafts, messages } from "../../../db/schema";
import { readSource } from "./message-source";
import { draftSchema } from "./draft-schemas";
import { draftFile } from "./drafts";
import { ATTACHMENT_LIMITS } from "./outbound/attachments";
import { operatorActor } from "../../platform/actor";
import { createPolicy } from "../approvals/policies";
import { editDraftAsPerson } from "../approvals/draft-approval";

// No RESEND_API_KEY: outbound mail is captured, and the captured MIME is what would have left.
const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();

const download = async (key: string, draftId: string, attachmentId: string) => {
  const res = await fetch(`${url()}/api/v1/drafts/${draftId}/attachments/${attachmentId}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
};

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("IHDR fake png body for draft tests")]);
const PDF = Buffer.from("%PDF-1.7\n1 0 obj << >> endobj\ntrailer\n%%EOF\n");
const CSV = Buffer.from("name,qty\nbolts,4\n");
const EXE = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(200, 1)]);
const b64 = (b: Buffer) => b.toString("base64");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function setup() {
  const base = await newAgentInbox(api, undefined, CORRESPONDENTS);
  const { key } = await newKey(base.workspace.id, { agent_id: base.agent.id, scopes: ["mail", "approvals"] });
  const create = (body: Record<string, unknown>) => api(`/api/v1/inboxes/${base.inbox.id}/drafts`, { key, body });
  const patch = (id: string, body: Record<string, unknown>) => api(`/api/v1/drafts/${id}`, { key, method: "PATCH", body });
  const deliver = async (raw: Buffer) => {
    const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
    expect(res.status).toBe(200);
    return res.json.deliveries[0] as { message_id: string; thread_id: string };
  };
  return { ...base, key, create, patch, deliver };
}

const db = getDb;
const blobCount = async (workspaceId: string) => Number((await (await db()).select({ n: sql<number>`count(*)` }).from(attachmentBlobs).where(eq(attachmentBlobs.workspaceId, workspaceId)))[0]!.n);
const blobHashes = async (workspaceId: string) => (await (await db()).select({ sha256: attachmentBlobs.sha256 }).from(attachmentBlobs).where(eq(attachmentBlobs.workspaceId, workspaceId))).map((b) => b.sha256).sort();
const draftCount = async (inboxId: string) => (await (await db()).select({ id: drafts.id }).from(drafts).where(eq(drafts.inboxId, inboxId))).length;
const outbound = async (inboxId: string) => (await db()).select().from(messages).where(and(eq(messages.inboxId, inboxId), eq(messages.direction, "outbound")));
const NEW = { to: ["bob@customer.test"], subject: "Your files", text: "Attached." };

describe("attachments on drafts", () => {
  it("stores files once per workspace, lists them on the draft without bytes (type sniffed), and sends them with the draft", async () => {
    const { workspace, inbox, key, create } = await setup();
    const res = await create({ ...NEW, attachments: [{ filename: "chart.txt", content_base64: b64(PNG), content_type: "text/plain" }, { filename: "../invoice.pdf", content_base64: b64(PDF) }] });
    expect(res.status, res.text).toBe(201);
    const d = draftSchema.strict().parse(res.json);
    expect(d.attachments).toEqual([
      { id: expect.stringMatching(/^att_/), filename: "chart.txt", content_type: "image/png", size: PNG.length, sha256: sha(PNG) },
      { id: expect.stringMatching(/^att_/), filename: "invoice.pdf", content_type: "application/pdf", size: PDF.length, sha256: sha(PDF) },
    ]);
    expect(JSON.stringify(res.json)).not.toContain(b64(PDF));
    // The answer says which declared type was replaced (as a send's does); reading the draft again does not.
    expect(d.attachment_notes).toEqual([{ filename: "chart.txt", declared_content_type: "text/plain", content_type: "image/png", note: expect.stringContaining("image/png") }]);
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json.attachment_notes).toBeUndefined();
    expect(await blobCount(workspace.id)).toBe(2);
    // The same file on a second draft is not stored again.
    expect((await create({ ...NEW, attachments: [{ filename: "again.pdf", content_base64: b64(PDF) }] })).status).toBe(201);
    expect(await blobCount(workspace.id)).toBe(2);

    const sent = await api(`/api/v1/drafts/${d.id}/send`, { key, body: { version: 1 } });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.json.attachments.map((a: { filename: string; content_type: string; sha256: string }) => [a.filename, a.content_type, a.sha256])).toEqual([
      ["chart.txt", "image/png", sha(PNG)],
      ["invoice.pdf", "application/pdf", sha(PDF)],
    ]);
    const parsed = await simpleParser(await readSource(sent.json.id));
    expect(parsed.attachments.map((a) => [a.filename, a.contentType, sha(a.content)])).toEqual([
      ["chart.txt", "image/png", sha(PNG)],
      ["invoice.pdf", "application/pdf", sha(PDF)],
    ]);
    expect((await outbound(inbox.id))).toHaveLength(1);
    // Sent, the files are in the message's source: the PNG only this draft listed is no longer kept beside it; the PDF the other draft lists is.
    expect(await blobHashes(workspace.id)).toEqual([sha(PDF)]);
  });

  it("PATCH replaces the list ([] removes it); a member downloads a file as stored", async () => {
    const { workspace, key, create, patch } = await setup();
    const d = (await create({ ...NEW, attachments: [{ filename: "a.pdf", content_base64: b64(PDF) }] })).json;
    const v2 = await patch(d.id, { version: 1, attachments: [{ filename: "list.csv", content_base64: b64(CSV), content_type: "text/csv" }, { filename: "b.png", content_base64: b64(PNG) }] });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.attachments.map((a: { filename: string; content_type: string }) => [a.filename, a.content_type])).toEqual([["list.csv", "text/csv"], ["b.png", "image/png"]]);
    // A PATCH without attachments keeps them.
    const v3 = await patch(d.id, { version: 2, text: "New text" });
    expect(v3.json.attachments).toHaveLength(2);
    const member = await newMember(workspace.id, "approver");
    const file = await draftFile(member.actor, d.id, 1);
    expect(sha(file.bytes)).toBe(sha(PNG));
    await expect(draftFile(member.actor, d.id, 2)).rejects.toMatchObject({ code: "not_found" });
    expect(v2.json.attachment_notes).toBeUndefined(); // every declared type was right
    const misdeclared = await patch(d.id, { version: 3, attachments: [{ filename: "chart.txt", content_base64: b64(PNG), content_type: "text/plain" }] });
    expect(misdeclared.json.attachment_notes).toEqual([{ filename: "chart.txt", declared_content_type: "text/plain", content_type: "image/png", note: expect.stringContaining("image/png") }]);
    const v4 = await patch(d.id, { version: 4, attachments: [] });
    expect(v4.json.attachments).toEqual([]);
    const sent = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    expect(sent.status).toBe(201);
    expect(sent.json.attachments).toEqual([]);
  });

  it("over the limits, an executable or bad base64: 400 naming the field, nothing stored or changed", async () => {
    const { workspace, inbox, create, patch } = await setup();
    const one = { filename: "a.pdf", content_base64: b64(PDF) };
    const cases: [unknown, string][] = [
      [Array.from({ length: ATTACHMENT_LIMITS.count + 1 }, () => one), "attachments"],
      [[{ filename: "big.bin", content_base64: b64(Buffer.alloc(ATTACHMENT_LIMITS.fileBytes + 1, 7)) }], "attachments.0.content_base64"],
      [[{ filename: "x.bin", content_base64: "not base64!" }], "attachments.0.content_base64"],
      [[{ filename: "setup.exe", content_base64: b64(EXE), content_type: "application/pdf" }], "attachments.0"],
    ];
    for (const [attachments, field] of cases) {
      const res = await create({ ...NEW, attachments });
      expect(res.status, res.text).toBe(400);
      expect(res.json.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    // 25.5 MB in all: within the body allowance, over the total.
    const total = await create({ ...NEW, attachments: [0, 1, 2].map((i) => ({ filename: `${i}.bin`, content_base64: b64(Buffer.alloc(8.5 * 1024 * 1024, i)) })) });
    expect(total.status).toBe(400);
    expect(total.json.errors.map((e: { field: string }) => e.field)).toContain("attachments");
    expect(await draftCount(inbox.id)).toBe(0);
    expect(await blobCount(workspace.id)).toBe(0);

    const d = (await create({ ...NEW, attachments: [one] })).json;
    const bad = await patch(d.id, { version: 1, text: "changed", attachments: [{ filename: "run.sh", content_base64: b64(Buffer.from("#!/bin/sh\necho hi\n")) }] });
    expect(bad.status).toBe(400);
    expect(bad.json.errors.map((e: { field: string }) => e.field)).toContain("attachments.0");
    const [row] = await (await db()).select().from(drafts).where(eq(drafts.id, d.id));
    expect(row).toMatchObject({ version: 1, text: NEW.text });
    expect(row!.attachments.map((a) => a.filename)).toEqual(["a.pdf"]);
    expect(await blobCount(workspace.id)).toBe(1);
  });

  it("a forward draft sends the original's files and then its own, within one message's limits together", async () => {
    const { inbox, key, create, deliver } = await setup();
    const first = await deliver(
      await composeMime({ from: "bob@customer.test", to: inbox.address, subject: "Invoice", text: "See attached.", messageId: "<inv-a@customer.test>", attachments: [{ filename: "invoice.pdf", content: PDF, contentType: "application/pdf" }] }),
    );
    const fwd = await create({ kind: "forward", in_reply_to: first.message_id, to: ["accounts@team.test"], text: "FYI, with the chart", attachments: [{ filename: "chart.png", content_base64: b64(PNG) }] });
    expect(fwd.status, fwd.text).toBe(201);
    const sent = await api(`/api/v1/drafts/${fwd.json.id}/send`, { key, body: {} });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.json).toMatchObject({ subject: "Fwd: Invoice", forwarded_from: first.message_id });
    const parsed = await simpleParser(await readSource(sent.json.id));
    expect(parsed.attachments.map((a) => [a.filename, sha(a.content)])).toEqual([
      ["invoice.pdf", sha(PDF)],
      ["chart.png", sha(PNG)],
    ]);

    // Ten of its own plus the original's one is over the count: 400 when sent, nothing sent.
    const many = await create({ kind: "forward", in_reply_to: first.message_id, to: ["accounts@team.test"], attachments: Array.from({ length: 10 }, (_, i) => ({ filename: `${i}.csv`, content_base64: b64(Buffer.from(`n,${i}\n`)) })) });
    expect(many.status).toBe(201);
    const over = await api(`/api/v1/drafts/${many.json.id}/send`, { key, body: {} });
    expect(over.status).toBe(400);
    expect(over.json.errors.map((e: { field: string }) => e.field)).toContain("attachments");
    expect(await outbound(inbox.id)).toHaveLength(1);
    expect((await api(`/api/v1/drafts/${many.json.id}`, { key })).json.status).toBe("draft");
  });

  it("GET /v1/drafts/{id}/attachments/{attachment_id}: the file's bytes, sniffed type and file name; scoped as the draft is; a replaced file's id is gone", async () => {
    const { workspace, key, create, patch } = await setup();
    const res = await create({ ...NEW, attachments: [{ filename: "Rapport été.pdf", content_base64: b64(PDF) }, { filename: "chart.txt", content_base64: b64(PNG), content_type: "text/plain" }] });
    const d = draftSchema.strict().parse(res.json);
    const [pdf, png] = d.attachments;
    expect(pdf!.id).toMatch(/^att_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(png!.id).not.toBe(pdf!.id);
    // The ids are the same on every read.
    expect((await api(`/api/v1/drafts/${d.id}`, { key })).json.attachments.map((a: { id: string }) => a.id)).toEqual([pdf!.id, png!.id]);

    const got = await download(key, d.id, png!.id);
    expect(got.status).toBe(200);
    expect(sha(got.bytes)).toBe(sha(PNG));
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="chart.txt"; filename*=UTF-8''chart.txt`);
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("etag")).toBe(`"${sha(PNG)}"`);
    const first = await download(key, d.id, pdf!.id);
    expect(first.headers.get("content-type")).toBe("application/pdf");
    expect(first.headers.get("content-disposition")).toBe(`attachment; filename="Rapport _t_.pdf"; filename*=UTF-8''${encodeURIComponent("Rapport été.pdf")}`);
    expect(first.bytes.equals(PDF)).toBe(true);

    // Another agent's key, another workspace's key: the draft is not theirs to read (404), as GET /v1/drafts/{id} is.
    const stranger = await newKey(workspace.id, { agent_id: (await newAgent(workspace.id, "other")).id, scopes: ["mail"] });
    expect((await api(`/api/v1/drafts/${d.id}`, { key: stranger.key })).status).toBe(404);
    expect((await download(stranger.key, d.id, png!.id)).status).toBe(404);
    const elsewhere = await newKey((await newWorkspace()).workspace.id, { scopes: ["mail"] });
    expect((await download(elsewhere.key, d.id, png!.id)).status).toBe(404);
    // A workspace-wide key reads every inbox's drafts.
    const wide = await newKey(workspace.id, { scopes: ["mail"] });
    expect((await download(wide.key, d.id, png!.id)).status).toBe(200);
    // A message attachment's id, or no such file: 404.
    expect((await download(key, d.id, "att_00000000000000000000000000")).status).toBe(404);
    expect((await download(key, d.id, "0")).status).toBe(404);

    // Downloads racing an edit that replaces the files: each answer is a whole stored file, or 404 once it is gone.
    const racing = Promise.all(Array.from({ length: 6 }, () => download(key, d.id, png!.id)));
    const edited = await patch(d.id, { version: 1, attachments: [{ filename: "list.csv", content_base64: b64(CSV), content_type: "text/csv" }] });
    expect(edited.status).toBe(200);
    for (const r of await racing) {
      expect([200, 404]).toContain(r.status);
      if (r.status === 200) expect(sha(r.bytes)).toBe(sha(PNG));
    }
    expect((await download(key, d.id, png!.id)).status).toBe(404);
    const csv = edited.json.attachments[0];
    const now = await download(key, d.id, csv.id);
    expect(now.headers.get("content-type")).toBe("text/csv");
    expect(now.bytes.equals(CSV)).toBe(true);
  });

  it("each file stored once: a sent draft's files live in its message only (downloads read them there); a file another unsent draft lists is kept until that one is sent", async () => {
    const { workspace, inbox, key, create } = await setup();
    const a = (await create({ ...NEW, attachments: [{ filename: "a.pdf", content_base64: b64(PDF) }, { filename: "b.png", content_base64: b64(PNG) }] })).json;
    const b = (await create({ ...NEW, attachments: [{ filename: "again.pdf", content_base64: b64(PDF) }] })).json;
    expect(await blobHashes(workspace.id)).toEqual([sha(PDF), sha(PNG)].sort());
    expect((await api(`/api/v1/drafts/${a.id}/send`, { key, body: {} })).status).toBe(201);
    expect(await blobHashes(workspace.id)).toEqual([sha(PDF)]);
    // The sent draft's files still download, read out of its message.
    for (const [file, bytes] of [[a.attachments[0], PDF], [a.attachments[1], PNG]] as const) {
      const got = await download(key, a.id, file.id);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
    }
    const member = await newMember(workspace.id, "approver");
    expect((await draftFile(member.actor, a.id, 1)).bytes.equals(PNG)).toBe(true);
    expect((await api(`/api/v1/drafts/${b.id}/send`, { key, body: {} })).status).toBe(201);
    expect(await blobHashes(workspace.id)).toEqual([]);
    expect((await download(key, b.id, b.attachments[0].id)).bytes.equals(PDF)).toBe(true);
    const parsed = await Promise.all((await outbound(inbox.id)).map(async (m) => (await simpleParser(await readSource(m.id))).attachments.map((f) => sha(f.content))));
    expect(parsed.flat().sort()).toEqual([sha(PDF), sha(PDF), sha(PNG)].sort());
  });

  it("a held draft's files leave attachment_blobs; a person's edit that reopens it stores them again, and it sends with them", async () => {
    const { workspace, key, create } = await setup();
    await createPolicy(operatorActor(workspace.id), { name: "Customers", action_class: "email.send", recipient_domain: "@customer.test" });
    const d = (await create({ ...NEW, to: ["bob@customer.test"], attachments: [{ filename: "contract.pdf", content_base64: b64(PDF) }] })).json;
    const held = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    expect(held.status).toBe(202);
    expect(await blobHashes(workspace.id)).toEqual([]);
    expect((await download(key, d.id, d.attachments[0].id)).bytes.equals(PDF)).toBe(true);
    const person = await newMember(workspace.id, "approver");
    const reopened = await editDraftAsPerson(person.actor, d.id, 2, { text: "Signed copy attached." });
    expect(reopened).toMatchObject({ status: "draft", version: 3 });
    expect(await blobHashes(workspace.id)).toEqual([sha(PDF)]);
    expect((await api(`/api/v1/messages/${held.json.id}`, { key })).json.status).toBe("discarded");
    const again = await api(`/api/v1/drafts/${d.id}/send`, { key, body: {} });
    expect(again.status).toBe(202);
    const parsed = await simpleParser(await readSource(again.json.id));
    expect(parsed.attachments.map((f) => sha(f.content))).toEqual([sha(PDF)]);
    expect(parsed.text?.trim()).toBe("Signed copy attached.");
  });

  it("drafts created with a file while another draft with it is sent, racing: every unsent draft keeps its file, and sends it", async () => {
    const { workspace, inbox, key, create } = await setup();
    const file = Buffer.concat([PDF, Buffer.from(`race ${Math.random()}\n`)]);
    const first = (await create({ ...NEW, attachments: [{ filename: "f.pdf", content_base64: b64(file) }] })).json;
    const [sent, ...created] = await Promise.all([
      api(`/api/v1/drafts/${first.id}/send`, { key, body: {} }),
      ...Array.from({ length: 6 }, (_, i) => create({ ...NEW, subject: `Race ${i}`, attachments: [{ filename: `f${i}.pdf`, content_base64: b64(file) }] })),
    ]);
    expect(sent!.status).toBe(201);
    expect(created.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(await blobHashes(workspace.id)).toEqual([sha(file)]);
    const results = await Promise.all(created.map((r) => api(`/api/v1/drafts/${r.json.id}/send`, { key, body: {} })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    for (const r of results) expect(r.json.attachments.map((a: { sha256: string }) => a.sha256)).toEqual([sha(file)]);
    expect(await blobHashes(workspace.id)).toEqual([]);
    expect(await outbound(inbox.id)).toHaveLength(7);
  });
});
