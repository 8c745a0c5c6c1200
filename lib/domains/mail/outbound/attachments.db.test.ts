import { describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["team.test", "finance.test"];
import { composeMime } from "../../../../test/helpers/mime";
import { getDb } from "../../../../db/client";
import { attachmentBlobs, auditEntries, messages } from "../../../../db/schema";
import { readSource } from "../message-source";
import { messageSchema } from "../schemas";
import { ATTACHMENT_LIMITS, cleanFilename, sniffContentType } from "./attachments";

// No RESEND_API_KEY: outbound mail is captured, and the captured MIME is what would have left.
const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("IHDR fake png body for tests")]);
const PDF = Buffer.from("%PDF-1.7\n1 0 obj << >> endobj\ntrailer\n%%EOF\n");
const EXE = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(200, 1)]);
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(100, 2)]);
const b64 = (b: Buffer) => b.toString("base64");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const deliver = async (raw: Buffer) => {
  const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status).toBe(200);
  return res.json.deliveries[0] as { message_id: string; thread_id: string };
};

const blobCount = async (workspaceId: string) =>
  Number((await (await getDb()).select({ n: sql<number>`count(*)` }).from(attachmentBlobs).where(eq(attachmentBlobs.workspaceId, workspaceId)))[0]!.n);
const messageCount = async (inboxId: string) => (await (await getDb()).select({ id: messages.id }).from(messages).where(eq(messages.inboxId, inboxId))).length;

const send = (key: string, inboxId: string, attachments: unknown, extra: Record<string, unknown> = {}) =>
  api(`/api/v1/inboxes/${inboxId}/messages`, { key, body: { to: ["bob@team.test"], subject: "Files", text: "See attached.", attachments, ...extra } });

describe("sniffing and file names", () => {
  it("knows common types by their bytes and names executables", () => {
    expect(sniffContentType(PNG).contentType).toBe("image/png");
    expect(sniffContentType(PDF).contentType).toBe("application/pdf");
    expect(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0])).contentType).toBe("image/jpeg");
    expect(sniffContentType(Buffer.from("GIF89a....")).contentType).toBe("image/gif");
    expect(sniffContentType(Buffer.from("RIFF\0\0\0\0WEBPVP8 ")).contentType).toBe("image/webp");
    expect(sniffContentType(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from("word/document.xml")])).contentType).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(sniffContentType(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from("xl/workbook.xml")])).contentType).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(sniffContentType(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from("a.txt")])).contentType).toBe("application/zip");
    expect(sniffContentType(Buffer.from("name,qty\nbolts,4\n"), "text/csv").contentType).toBe("text/csv");
    expect(sniffContentType(Buffer.from("héllo wörld\n")).contentType).toBe("text/plain");
    expect(sniffContentType(Buffer.from([0, 1, 2, 3, 250, 251])).contentType).toBe("application/octet-stream");
    expect(sniffContentType(EXE).executable).toMatch(/Windows/);
    expect(sniffContentType(ELF).executable).toMatch(/ELF/);
    expect(sniffContentType(Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7])).executable).toMatch(/Mach-O/);
    expect(sniffContentType(Buffer.from("#!/bin/sh\nrm -rf /\n")).executable).toMatch(/script/);
  });

  it("cleans file names: last path segment, no control or reserved characters, at most 255 characters with the extension kept", () => {
    expect(cleanFilename("../../etc/passwd")).toBe("passwd");
    expect(cleanFilename("C:\\Users\\x\\report.pdf")).toBe("report.pdf");
    expect(cleanFilename('a"b\r\nc<d>.txt')).toBe("a_b__c_d_.txt");
    expect(cleanFilename("...")).toBe("attachment");
    const long = cleanFilename(`${"x".repeat(400)}.pdf`);
    expect(long).toHaveLength(255);
    expect(long.endsWith(".pdf")).toBe(true);
  });
});

describe("POST /v1/inboxes/{id}/messages with attachments (captured)", () => {
  it("sniffs a PNG declared as text/plain, sends it as image/png and says so; the captured MIME holds the parts; the message lists them", async () => {
    const { key, inbox, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const res = await send(key, inbox.id, [
      { filename: "chart.txt", content_base64: b64(PNG), content_type: "text/plain" },
      { filename: "../invoice.pdf", content_base64: b64(PDF) },
    ]);
    expect(res.status).toBe(201);
    const m = messageSchema.strict().parse(res.json);
    expect(m.status).toBe("captured");
    expect(m.attachments.map((a) => [a.filename, a.content_type, a.size, a.sha256])).toEqual([
      ["chart.txt", "image/png", PNG.length, sha(PNG)],
      ["invoice.pdf", "application/pdf", PDF.length, sha(PDF)],
    ]);
    expect(m.attachment_notes).toEqual([{ filename: "chart.txt", declared_content_type: "text/plain", content_type: "image/png", note: expect.stringContaining("image/png") }]);

    const wire = await simpleParser(await readSource(m.id));
    expect(wire.attachments.map((a) => [a.filename, a.contentType, sha(a.content)])).toEqual([
      ["chart.txt", "image/png", sha(PNG)],
      ["invoice.pdf", "application/pdf", sha(PDF)],
    ]);
    expect(wire.text?.trim()).toBe("See attached.");

    // Downloads are the bytes sent.
    const dl = await fetchAttachment(key, m.id, m.attachments[0]!.id);
    expect(dl.status).toBe(200);
    expect(dl.headers.get("content-type")).toBe("image/png");
    expect(sha(dl.bytes)).toBe(sha(PNG));

    const [audit] = await (await getDb()).select().from(auditEntries).where(eq(auditEntries.resourceId, m.id));
    expect(audit!.summary).toMatchObject({ attachments: [{ filename: "chart.txt", sha256: sha(PNG) }, { filename: "invoice.pdf", sha256: sha(PDF) }] });
    // The message's files are in its source only: no second copy.
    expect(await blobCount(workspace.id)).toBe(0);
  });

  it("stores a sent file's bytes once, in the message's source: about the file's size in all, nothing in attachment_blobs", async () => {
    const { key, inbox, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    // Random bytes do not compress: what is stored is what the file costs.
    const file = Buffer.concat([Buffer.from("%PDF-1.7\n"), randomBytes(256 * 1024)]);
    const raced = await Promise.all(Array.from({ length: 3 }, () => send(key, inbox.id, [{ filename: "big.pdf", content_base64: b64(file) }])));
    expect(raced.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(await messageCount(inbox.id)).toBe(3);
    expect(await blobCount(workspace.id)).toBe(0);
    for (const r of raced) {
      const [{ n }] = (await (await getDb()).execute<{ n: string }>(sql`select coalesce(sum(octet_length(bytes)), 0)::text as n from message_source_chunks where message_id = ${r.json.id}`)).rows as [{ n: string }];
      // The base64 of the MIME part, gzipped, is about the file's own size (two copies would be over twice it).
      expect(Number(n)).toBeGreaterThan(file.length);
      expect(Number(n)).toBeLessThan(file.length * 1.2);
      const dl = await fetchAttachment(key, r.json.id, r.json.attachments[0].id);
      expect(sha(dl.bytes)).toBe(sha(file));
    }
  });

  it("refuses executables, naming the file; nothing is stored or sent", async () => {
    const { key, inbox, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    for (const bad of [EXE, ELF, Buffer.from("#!/usr/bin/env python\nprint(1)\n")]) {
      const res = await send(key, inbox.id, [{ filename: "ok.pdf", content_base64: b64(PDF) }, { filename: "setup.pdf", content_base64: b64(bad), content_type: "application/pdf" }]);
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors).toEqual([expect.objectContaining({ field: "attachments.1", message: expect.stringContaining("executables are not sent") })]);
    }
    expect(await messageCount(inbox.id)).toBe(0);
    expect(await blobCount(workspace.id)).toBe(0);
  });

  it("each limit is a 400 naming the field, before anything is stored or sent", async () => {
    const { key, inbox, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const tiny = { filename: "a.pdf", content_base64: b64(PDF) };
    const cases: [unknown, string][] = [
      [Array.from({ length: ATTACHMENT_LIMITS.count + 1 }, () => tiny), "attachments"],
      [[{ filename: "a.bin", content_base64: "not base64!" }], "attachments.0.content_base64"],
      [[{ filename: "a.bin", content_base64: "QUJD\nREVG" }], "attachments.0.content_base64"],
      [[{ filename: "a.bin", content_base64: "" }], "attachments.0.content_base64"],
      [[{ filename: "", content_base64: b64(PDF) }], "attachments.0.filename"],
      [[{ filename: "a.pdf", content_base64: b64(PDF), content_type: "x".repeat(300) }], "attachments.0.content_type"],
      [[{ filename: "big.bin", content_base64: b64(Buffer.alloc(ATTACHMENT_LIMITS.fileBytes + 1, 7)) }], "attachments.0.content_base64"],
      // 25.5 MB in all: within the body allowance, over the total.
      [Array.from({ length: 3 }, (_, i) => ({ filename: `part${i}.bin`, content_base64: b64(Buffer.alloc(8.5 * 1024 * 1024, i)) })), "attachments"],
      [[{ ...tiny, extra: 1 }], "attachments.0.extra"],
    ];
    for (const [attachments, field] of cases) {
      const res = await send(key, inbox.id, attachments);
      expect(res.status, `${field}: ${res.text.slice(0, 300)}`).toBe(400);
      expect(res.json.code).toBe("validation_failed");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    // A body over API_MAX_BODY_BYTES plus the attachments' allowance is refused before it is parsed.
    const huge = await send(key, inbox.id, Array.from({ length: 3 }, (_, i) => ({ filename: `part${i}.bin`, content_base64: b64(Buffer.alloc(9 * 1024 * 1024, i)) })));
    expect(huge.status).toBe(413);
    expect(huge.json.code).toBe("payload_too_large");
    expect(await messageCount(inbox.id)).toBe(0);
    expect(await blobCount(workspace.id)).toBe(0);
  });

  it("the send route takes a body over API_MAX_BODY_BYTES (1 MB) when attachments need it; other routes do not", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const two = Buffer.alloc(2 * 1024 * 1024, 0x41);
    const res = await send(key, inbox.id, [{ filename: "big.txt", content_base64: b64(two) }]);
    expect(res.status).toBe(201);
    expect(res.json.attachments[0]).toMatchObject({ content_type: "text/plain", size: two.length, sha256: sha(two) });
    const other = await api(`/api/v1/inboxes/${inbox.id}`, { method: "PATCH", key, body: { display_name: "x".repeat(2 * 1024 * 1024) } });
    expect(other.status).toBe(413);
  });

  it("a reply carries attachments too", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const received = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Need the invoice", text: "Please send it." }));
    const res = await api(`/api/v1/messages/${received.message_id}/reply`, { key, body: { text: "Here it is.", attachments: [{ filename: "invoice.pdf", content_base64: b64(PDF) }] } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ subject: "Re: Need the invoice", thread_id: received.thread_id, attachments: [{ filename: "invoice.pdf", content_type: "application/pdf" }] });
  });
});

async function fetchAttachment(key: string, messageId: string, attachmentId: string) {
  const res = await fetch(`${url()}/api/v1/messages/${messageId}/attachments/${attachmentId}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("POST /v1/messages/{id}/forward (captured)", () => {
  it("forwards a received message with its attachments: Fwd: once, the note and the forwarded block, a new thread for the recipients, the original's thread here", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const received = await deliver(
      await composeMime({
        from: "Bob <bob@team.test>",
        to: inbox.address,
        cc: "carol@team.test",
        subject: "Quarterly numbers",
        text: "The numbers are attached.",
        attachments: [{ filename: "q3.pdf", content: PDF, contentType: "application/pdf" }, { filename: "chart.png", content: PNG, contentType: "image/png" }],
      }),
    );
    const res = await api(`/api/v1/messages/${received.message_id}/forward`, { key, body: { to: ["dana@finance.test"], note: "Dana, for the review." } });
    expect(res.status).toBe(201);
    const fwd = messageSchema.strict().parse(res.json);
    expect(fwd).toMatchObject({ subject: "Fwd: Quarterly numbers", to: [{ email: "dana@finance.test" }], in_reply_to: null, references: [], thread_id: received.thread_id, forwarded_from: received.message_id, status: "captured" });
    expect(fwd.text).toMatch(/^Dana, for the review\.\n\n---------- Forwarded message ---------\nFrom: Bob <bob@team\.test>\nDate: .+\nSubject: Quarterly numbers\nTo: .+\nCc: carol@team\.test\n\nThe numbers are attached\./);
    expect(fwd.attachments.map((a) => [a.filename, a.content_type, a.sha256])).toEqual([
      ["q3.pdf", "application/pdf", sha(PDF)],
      ["chart.png", "image/png", sha(PNG)],
    ]);
    const wire = await simpleParser(await readSource(fwd.id));
    expect(wire.inReplyTo).toBeUndefined();
    expect(wire.references).toBeUndefined();
    expect(wire.attachments.map((a) => sha(a.content))).toEqual([sha(PDF), sha(PNG)]);

    // Forwarding the forward: "Fwd:" is not doubled; without attachments when asked.
    const again = await api(`/api/v1/messages/${fwd.id}/forward`, { key, body: { to: ["erin@finance.test"], include_attachments: false } });
    expect(again.status).toBe(201);
    expect(again.json).toMatchObject({ subject: "Fwd: Quarterly numbers", attachments: [], thread_id: received.thread_id, forwarded_from: fwd.id });
    const thread = await api(`/api/v1/threads/${received.thread_id}`, { key });
    expect(thread.json.messages.map((m: { id: string }) => m.id)).toEqual([received.message_id, fwd.id, again.json.id]);
  });

  it("a forward of a message with an executable attachment is refused unless without attachments", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const received = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Tool", text: "Run this.", attachments: [{ filename: "tool.exe", content: EXE, contentType: "application/octet-stream" }] }));
    const refused = await api(`/api/v1/messages/${received.message_id}/forward`, { key, body: { to: ["dana@finance.test"] } });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].field).toBe("include_attachments.0");
    expect(await messageCount(inbox.id)).toBe(1);
    const plain = await api(`/api/v1/messages/${received.message_id}/forward`, { key, body: { to: ["dana@finance.test"], include_attachments: false } });
    expect(plain.status).toBe(201);
  });

  it("racing forwards with one Idempotency-Key send once", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const received = await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Race", text: "Forward me.", attachments: [{ filename: "q.pdf", content: PDF }] }));
    const call = () => api(`/api/v1/messages/${received.message_id}/forward`, { key, body: { to: ["dana@finance.test"] }, headers: { "idempotency-key": "fwd-race-1" } });
    const answers = await Promise.all(Array.from({ length: 5 }, call));
    const ok = answers.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(1);
    for (const r of answers.filter((r) => r.status !== 201)) expect(r.status).toBe(409);
    const forwards = (await (await getDb()).select().from(messages).where(eq(messages.inboxId, inbox.id))).filter((m) => m.direction === "outbound");
    expect(forwards).toHaveLength(1);
  });

  it("held mail with attachments: the approval names them by hash; mail held for approval cannot be forwarded", async () => {
    const { newMember, newKey } = await import("../../../../test/helpers/fixtures");
    const { decideApproval } = await import("../../approvals/decide-approval");
    const { inbox, agent, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail", "approvals"] });
    const res = await send(key, inbox.id, [{ filename: "contract.pdf", content_base64: b64(PDF) }], { require_approval: true });
    expect(res.status).toBe(202);
    const approval = await api(`/api/v1/approvals/${res.json.approval_id}`, { key });
    expect(approval.json.action).toMatchObject({ attachments: [{ filename: "contract.pdf", sha256: sha(PDF), size: PDF.length, content_type: "application/pdf" }] });
    const blocked = await api(`/api/v1/messages/${res.json.id}/forward`, { key, body: { to: ["dana@finance.test"] } });
    expect(blocked.status).toBe(409);
    const approver = await newMember(workspace.id, "approver");
    await decideApproval(approver.actor, res.json.approval_id, "approve");
    const [m] = await (await getDb()).select().from(messages).where(eq(messages.id, res.json.id));
    expect(m!.status).toBe("captured");
    const wire = await simpleParser(await readSource(m!.id));
    expect(wire.attachments.map((a) => sha(a.content))).toEqual([sha(PDF)]);

    // A forward goes through the same gate: held, its approval names the original and the files.
    const fwd = await api(`/api/v1/messages/${m!.id}/forward`, { key, body: { to: ["dana@finance.test"], require_approval: true } });
    expect(fwd.status).toBe(202);
    expect(fwd.json).toMatchObject({ status: "pending_approval", forwarded_from: m!.id });
    const fwdApproval = await api(`/api/v1/approvals/${fwd.json.approval_id}`, { key });
    expect(fwdApproval.json.action).toMatchObject({ forwarded_from: m!.id, subject: "Fwd: Files", attachments: [{ filename: "contract.pdf", sha256: sha(PDF) }] });
    const [audit] = await (await getDb()).select().from(auditEntries).where(eq(auditEntries.resourceId, fwd.json.id));
    expect(audit).toMatchObject({ action: "email.held_for_approval", summary: expect.objectContaining({ forwarded_from: m!.id }) });
  });
});
