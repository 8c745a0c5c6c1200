import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { eq, inArray, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";

/** This file is about how mail is built and threaded: its correspondents are at domains the workspace trusts (the built-in rule, #48, is tested in lib/domains/approvals). */
const CORRESPONDENTS = ["team.test", "finance.test"];
import { composeMime } from "../../../../test/helpers/mime";
import { startFakeResend } from "../../../../test/helpers/fake-resend";
import { getDb } from "../../../../db/client";
import { approvals, attachmentBlobs, messageSourceChunks, messages } from "../../../../db/schema";
import { readSource } from "../message-source";
import { deliverOutboundMail } from "./deliver-outbound";

// Resend configured, pointed at a local fake that speaks its HTTP API (attachments as base64, 40 MB at most).
let fake: Awaited<ReturnType<typeof startFakeResend>>;
const SECRET = "inbound-secret-for-tests-0123456789";
const vars = {
  RESEND_API_KEY: "re_test_key",
  RESEND_BASE_URL: "http://127.0.0.1:9",
  INBOUND_SECRET: SECRET,
  AGENTDRAFT_MAIL_DOMAIN: "agents.test",
  API_RATE_LIMIT_BURST: "100000",
  API_RATE_LIMIT_PER_SECOND: "100000",
};
beforeAll(async () => {
  fake = await startFakeResend({ apiKey: vars.RESEND_API_KEY });
  vars.RESEND_BASE_URL = fake.url;
});
afterAll(() => fake?.close());
setTestEnv(vars);
const { api } = serveApiForTests();

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("IHDR png bytes for the resend test")]);
const PDF = Buffer.from("%PDF-1.4\nresend test\n%%EOF\n");
const b64 = (b: Buffer) => b.toString("base64");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const makeDue = async (ids: string[]) => (await getDb()).update(messages).set({ nextSendAt: sql`now()` }).where(inArray(messages.id, ids));
const row = async (id: string) => (await (await getDb()).select().from(messages).where(eq(messages.id, id)))[0]!;
const wireFor = (subject: string) => fake.sent.filter((w) => w.body.subject === subject);

describe("attachments through Resend", () => {
  it("Resend receives each file as base64 with its sniffed content_type", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const res = await api(`/api/v1/inboxes/${inbox.id}/messages`, {
      key,
      body: { to: ["bob@team.test"], subject: "Resend files", text: "Attached.", attachments: [{ filename: "chart.txt", content_base64: b64(PNG), content_type: "text/plain" }, { filename: "a.pdf", content_base64: b64(PDF) }] },
    });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe("queued");
    await makeDue([res.json.id]);
    expect((await deliverOutboundMail()).sent).toBeGreaterThanOrEqual(1);
    const [wire] = wireFor("Resend files");
    expect(wire!.body.attachments).toEqual([
      { filename: "chart.txt", content: b64(PNG), content_type: "image/png" },
      { filename: "a.pdf", content: b64(PDF), content_type: "application/pdf" },
    ]);
    expect((await row(res.json.id)).status).toBe("sent");
  });

  it("held mail: once approved, exactly the approved files leave; bytes changed in storage are never sent (the message fails)", async () => {
    const { newKey, newMember } = await import("../../../../test/helpers/fixtures");
    const { decideApproval } = await import("../../approvals/decide-approval");
    const { inbox, agent, workspace } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
    const approver = await newMember(workspace.id, "approver");

    const held = (await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@team.test"], subject: "Held files", text: "Contract.", attachments: [{ filename: "contract.pdf", content_base64: b64(PDF) }], require_approval: true } })).json;
    await decideApproval(approver.actor, held.approval_id, "approve");
    await makeDue([held.id]);
    await deliverOutboundMail();
    expect(wireFor("Held files").map((w) => w.body.attachments)).toEqual([[{ filename: "contract.pdf", content: b64(PDF), content_type: "application/pdf" }]]);
    // The approval binds the source the file was read out of.
    const [approval] = await (await getDb()).select().from(approvals).where(eq(approvals.id, held.approval_id));
    expect((approval!.action as { rfc822_sha256: string }).rfc822_sha256).toBe(sha(await readSource(held.id)));

    // The files are read out of the message's stored source, its one copy of them: nothing in attachment_blobs.
    expect(await (await getDb()).select().from(attachmentBlobs).where(eq(attachmentBlobs.workspaceId, workspace.id))).toEqual([]);

    // The same file, held again; its stored bytes are then altered: the delivery job refuses to send other bytes than those approved.
    const again = (await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@team.test"], subject: "Tampered files", text: "Contract.", attachments: [{ filename: "contract.pdf", content_base64: b64(PDF) }], require_approval: true } })).json;
    await decideApproval(approver.actor, again.approval_id, "approve");
    const approved = (await readSource(again.id)).toString("latin1");
    expect(approved).toContain(b64(PDF));
    const other = Buffer.from("%PDF-1.4\nsomething else, same size\n".slice(0, PDF.length).padEnd(PDF.length, "\n"));
    const tampered = gzipSync(Buffer.from(approved.replace(b64(PDF), b64(other)), "latin1"));
    await (await getDb()).delete(messageSourceChunks).where(eq(messageSourceChunks.messageId, again.id));
    await (await getDb()).insert(messageSourceChunks).values({ messageId: again.id, seq: 0, bytes: tampered });
    await makeDue([again.id]);
    await deliverOutboundMail();
    expect(wireFor("Tampered files")).toHaveLength(0);
    const m = await row(again.id);
    expect(m.status).toBe("failed");
    expect(m.lastError).toMatch(/not the ones composed/);
  });

  it("a forward hands the original's attachments to Resend", async () => {
    const { key, inbox } = await newAgentInbox(api, undefined, CORRESPONDENTS);
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "Scan", text: "Scanned.", attachments: [{ filename: "scan.png", content: PNG, contentType: "image/png" }] });
    const inbound = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
    const original = inbound.json.deliveries[0].message_id as string;
    const fwd = await api(`/api/v1/messages/${original}/forward`, { key, body: { to: ["dana@finance.test"], note: "FYI" } });
    expect(fwd.status).toBe(201);
    await makeDue([fwd.json.id]);
    await deliverOutboundMail();
    const [wire] = wireFor("Fwd: Scan");
    expect(wire!.body).toMatchObject({ to: ["dana@finance.test"], attachments: [{ filename: "scan.png", content: b64(PNG), content_type: "image/png" }] });
    expect(wire!.body.text).toContain("---------- Forwarded message ---------");
    expect(wire!.body.headers?.["In-Reply-To"]).toBeUndefined();
  });
});
