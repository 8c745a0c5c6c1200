import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";
import { trustDomains } from "../../../../test/helpers/fixtures";
import { hostileCorpus } from "../../../../test/helpers/hostile-mail";
import { getDb } from "../../../../db/client";
import { auditEntries, messages } from "../../../../db/schema";
import { sealAuditChain } from "../../../platform/audit/seal-chain";
import { resetEnvCache } from "../../../platform/config/env";
import { closeParsePool, parseMessageOffThread } from "./parse-pool";

// Mail crafted to stall a parser, overflow a stack or break an insert (issue 15): each message
// is stored (trimmed where RFC 5322 allows) or refused whole with a stable reason, never with a
// 5xx. The outcome is asserted here, the code path each case takes: a stored case parsed to its
// end, a refused one stopped at the limit it names. The parse deadline (MAIL_PARSE_TIMEOUT_MS) is
// set out of reach for the corpus, so a busy machine cannot turn a message that parses into a
// parse_timeout; the deadline itself has its own test below. How long each case takes, and the
// latency of a concurrent request meanwhile, are measured by `npm run bench:mail` (its hostile rows).
const SECRET = "hostile-mail-secret-0123456789";
const PARSE_TIMEOUT_MS = "600000";
setTestEnv({ INBOUND_SECRET: SECRET, MAIL_PARSE_TIMEOUT_MS: PARSE_TIMEOUT_MS, API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000", API_WORKSPACE_RATE_LIMIT_BURST: "100000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "100000" });
const { api } = serveApiForTests();
afterAll(() => closeParsePool());
// The parse pool's threads start (and load their modules) before the first case.
beforeAll(async () => {
  await Promise.all([0, 1].map(() => parseMessageOffThread(Buffer.from("From: a@b.example\r\nSubject: warm\r\n\r\nhi\r\n"))));
});

describe("hostile mail (SPEC §10)", () => {
  for (const [i, c] of hostileCorpus("placeholder@x.example").entries()) {
    // Megabytes parsed, sanitised and stored: on a busy machine that takes a while, which is no failure here.
    it(`${c.name}: ${"stored" in c.outcome ? "stored" : `refused (${c.outcome.refused})`}`, { timeout: 180_000 }, async () => {
      const { workspace, inbox } = await newAgentInbox(api);
      const raw = hostileCorpus(inbox.address)[i]!.raw;
      const res = await api(`/api/inbound/raw?to=${encodeURIComponent(inbox.address)}`, {
        method: "POST",
        rawBody: raw.toString("latin1"),
        headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" },
      });
      expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);

      const db = await getDb();
      if ("stored" in c.outcome) {
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        const id = res.json.deliveries[0].message_id as string;
        const [row] = await db.select().from(messages).where(eq(messages.id, id));
        expect(row!.references.length).toBeLessThanOrEqual(100);
        expect(JSON.stringify(row)).not.toContain("\\u0000");
        // Stored bodies are bounded (MAIL_MAX_BODY_CHARS, 256 Ki by default); the raw source keeps the rest.
        for (const body of [row!.text, row!.markdown, row!.textReply, row!.htmlSanitized ?? ""]) expect(body.length).toBeLessThanOrEqual(256 * 1024);
        if (/5 MB line|injection/.test(c.name)) expect(row!.bodyTruncated).toBe(true);
        if (/References/.test(c.name)) expect(row!.references).toEqual(["<r0@a.example>", ...Array.from({ length: 99 }, (_, k) => `<r${1901 + k}@a.example>`)]);
      } else {
        expect(res.status, res.text.slice(0, 300)).toBe(422);
        expect(res.json).toMatchObject({ code: "unprocessable_message", reason: c.outcome.refused });
        expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toEqual([]);
        await sealAuditChain();
        const entries = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "email.rejected")));
        expect(entries.map((e) => (e.summary as { reason: string }).reason)).toEqual([c.outcome.refused]);
      }
    });
  }

  it("refuses hostile HTML an agent sends with a 422, not a 500 (the composed message is parsed back)", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const send = (html: string) => api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["bob@example.com"], subject: "Hi", text: "plain", html } });
    const hidden = await send('<p>hello</p>' + '<span style="display:none">x</span>'.repeat(20_000));
    expect(hidden.status).toBe(201);
    expect(hidden.json.security.hidden_text_removed).toBe(true);
    const deep = await send("<b>".repeat(5_000));
    expect(deep.status).toBe(422);
    expect(deep.json).toMatchObject({ code: "unprocessable_message", reason: "html_too_deep" });
  });

  it("refuses a message that takes longer than MAIL_PARSE_TIMEOUT_MS on its worker thread (parse_timeout, permanent)", async () => {
    const { inbox } = await newAgentInbox(api);
    process.env.MAIL_PARSE_TIMEOUT_MS = "100";
    resetEnvCache();
    try {
      // ~10x the time the fastest corpus cases take; the thread is ended at the deadline.
      const slow = hostileCorpus(inbox.address).find((h) => h.name.includes("stray end tags"))!.raw;
      const res = await api(`/api/inbound/raw?to=${encodeURIComponent(inbox.address)}`, { method: "POST", rawBody: slow.toString("latin1"), headers: { authorization: `Bearer ${SECRET}` } });
      expect(res.status, res.text.slice(0, 200)).toBe(422);
      expect(res.json).toMatchObject({ code: "unprocessable_message", reason: "parse_timeout", limit: 100 });
    } finally {
      process.env.MAIL_PARSE_TIMEOUT_MS = PARSE_TIMEOUT_MS;
      resetEnvCache();
    }
  });

  it("stores a 70,000-id References header trimmed to MAIL_MAX_REFERENCES when the header limit lets it in (was a 500: too many insert parameters)", async () => {
    const { inbox } = await newAgentInbox(api);
    process.env.MAIL_MAX_HEADER_BYTES = String(8 * 1024 * 1024);
    resetEnvCache();
    try {
      const refs = Array.from({ length: 70_000 }, (_, k) => `<ref-${k}@attacker.example>`);
      const raw = `From: m@attacker.example\r\nTo: ${inbox.address}\r\nSubject: refs\r\nMessage-ID: <refs-${Date.now()}@attacker.example>\r\nReferences: ${refs.join("\r\n ")}\r\n\r\nhi\r\n`;
      const res = await api(`/api/inbound/raw?to=${encodeURIComponent(inbox.address)}`, { method: "POST", rawBody: raw, headers: { authorization: `Bearer ${SECRET}` } });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      const [row] = await (await getDb()).select().from(messages).where(eq(messages.id, res.json.deliveries[0].message_id));
      expect(row!.references).toEqual([refs[0], ...refs.slice(-99)]);
    } finally {
      delete process.env.MAIL_MAX_HEADER_BYTES;
      resetEnvCache();
    }
  });

  it("bounds reply_all fan-out to what a new message may address", async () => {
    const { key, inbox, workspace } = await newAgentInbox(api);
    await trustDomains(workspace.id, "example.com"); // colleagues: the reply is not held for a person
    const cc = Array.from({ length: 80 }, (_, k) => `person${k}@example.com`).join(", ");
    const raw = `From: alice@example.com\r\nTo: ${inbox.address}\r\nCc: ${cc}\r\nSubject: big thread\r\nMessage-ID: <big-${Date.now()}@example.com>\r\n\r\nhello all\r\n`;
    const received = await api(`/api/inbound/raw?to=${encodeURIComponent(inbox.address)}`, { method: "POST", rawBody: raw, headers: { authorization: `Bearer ${SECRET}` } });
    const id = received.json.deliveries[0].message_id as string;
    const all = await api(`/api/v1/messages/${id}/reply`, { key, body: { text: "ack", reply_all: true } });
    expect(all.status).toBe(422);
    expect(all.json).toMatchObject({ reason: "too_many_recipients", limit: 50 });
    expect((await api(`/api/v1/messages/${id}/reply`, { key, body: { text: "ack" } })).status).toBe(201);
  });
});
