import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { serveApiForTests } from "../../../../test/helpers/api-client";
import { mcpClients } from "../../../../test/helpers/mcp-client";
import { setTestEnv } from "../../../../test/helpers/env";
import { newAgentInbox } from "../../../../test/helpers/mail-fixtures";
import { composeMime } from "../../../../test/helpers/mime";
import { REPLY_SHAPES } from "../../../../test/corpora/replies";
import { getDb } from "../../../../db/client";
import { messages } from "../../../../db/schema";
import { messageSchema } from "../schemas";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, AGENTDRAFT_MAIL_DOMAIN: "agents.test", API_RATE_LIMIT_BURST: "100000", API_RATE_LIMIT_PER_SECOND: "100000" });
const { api, url } = serveApiForTests();
const { connect, call } = mcpClients(url);

const deliver = async (raw: Buffer) => {
  const res = await api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
  expect(res.status, res.text).toBe(200);
  return res.json.deliveries[0].message_id as string;
};
const squashSpace = (s: string) => s.replace(/\s+/g, " ").trim();

describe("extracted text at ingest (raw MIME through the parse worker and the real ingest path)", () => {
  it("stores the new text of each client's reply shape, and the same cut of its HTML", async () => {
    const { key, inbox } = await newAgentInbox(api);
    for (const shape of REPLY_SHAPES) {
      const id = await deliver(await composeMime({ from: "bob@example.com", to: inbox.address, subject: shape.subject ?? `Re: ${shape.name}`, text: shape.text, html: shape.html, messageId: `<${shape.name}@example.com>` }));
      const res = await api(`/api/v1/messages/${id}`, { key });
      expect(res.status).toBe(200);
      const m = messageSchema.parse(res.json);
      expect(squashSpace(m.extracted_text!), shape.name).toBe(squashSpace(shape.reply));
      expect(m.extraction_fallback).toBeNull();
      expect(m.text_reply).toBe(m.extracted_text);
      if (shape.quoted !== "\u0000") expect(m.text, shape.name).toContain(shape.quoted);
      if (shape.html) {
        expect(m.extracted_html, shape.name).not.toContain(shape.quoted);
        expect(m.html_sanitized, shape.name).toContain(shape.quoted);
      } else expect(m.extracted_html).toBeNull();
    }
  }, 180_000); // about 20 messages through the parse worker, one after another, on a loaded machine

  it("reads charsets other than UTF-8: an Outlook reply in ISO-8859-1 quoted-printable", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const raw = Buffer.from(
      [
        "From: Jonas Weber <jonas@example.de>",
        `To: ${inbox.address}`,
        "Subject: AW: Rechnung November",
        "Message-ID: <latin1-outlook@example.de>",
        "MIME-Version: 1.0",
        'Content-Type: text/plain; charset="iso-8859-1"',
        "Content-Transfer-Encoding: quoted-printable",
        "",
        "Erledigt, die Rechnung ist raus.",
        "",
        "Viele Gr=FC=DFe",
        "Jonas",
        "",
        "-----Urspr=FCngliche Nachricht-----",
        "Von: Anna Meyer <anna@example.org>",
        "Gesendet: Montag, 30. November 2026 16:12",
        "An: Jonas Weber <jonas@example.de>",
        "Betreff: Rechnung November",
        "",
        "Kannst du die Rechnung f=FCr November schicken?",
        "",
      ].join("\r\n"),
      "latin1",
    );
    const id = await deliver(raw);
    const m = (await api(`/api/v1/messages/${id}`, { key })).json;
    expect(squashSpace(m.extracted_text)).toBe("Erledigt, die Rechnung ist raus. Viele Grüße Jonas");
    expect(m.text).toContain("Rechnung für November");
  });

  it("records a fallback, never a failure: a long text with no quote in its first 64 KB is kept whole", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const text = `${"All new text, no quote here. ".repeat(3000)}\n\nOn Mon, Nov 30, 2026 at 4:12 PM Bob <bob@example.com> wrote:\n> old\n`;
    const id = await deliver(await composeMime({ from: "bob@example.com", to: inbox.address, subject: "long", text }));
    const m = (await api(`/api/v1/messages/${id}`, { key })).json;
    expect(m.extraction_fallback).toBe("too_large");
    expect(m.extracted_text).toBe(m.text);
  });

  it("MCP shows extracted_text first, the whole text a field away; mail stored before extraction falls back to text", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const shape = REPLY_SHAPES[0]!;
    const id = await deliver(await composeMime({ from: "bob@example.com", to: inbox.address, subject: "Re: plan", text: shape.text }));
    const client = await connect(key);
    const read = await call(client, "get_message", { message_id: id });
    expect(read.isError).toBeFalsy();
    const shown = read.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    expect(shown.indexOf('"extracted_text"')).toBeGreaterThan(0);
    expect(shown.indexOf('"extracted_text"')).toBeLessThan(shown.indexOf('"text"'));
    expect(shown.indexOf('"extracted_text"')).toBeLessThan(shown.indexOf('"markdown"'));
    expect(read.structuredContent).toMatchObject({ extracted_text: shape.reply, extraction_fallback: null, text: expect.stringContaining(shape.quoted) });

    // A message stored before extraction existed: null in the API, the whole text (said so) for the agent.
    const db = await getDb();
    await db.update(messages).set({ extractedText: null, extractedHtml: null }).where(eq(messages.id, id));
    expect((await api(`/api/v1/messages/${id}`, { key })).json).toMatchObject({ extracted_text: null, extraction_fallback: null });
    const old = await call(client, "get_message", { message_id: id });
    expect(old.structuredContent).toMatchObject({ extracted_text: expect.stringContaining(shape.quoted), extraction_fallback: "not_computed" });
    const thread = await call(client, "get_thread", { thread_id: (old.structuredContent as { thread_id: string }).thread_id });
    expect((thread.structuredContent as { messages: { extraction_fallback: string }[] }).messages[0]).toMatchObject({ extraction_fallback: "not_computed" });
  });
});
