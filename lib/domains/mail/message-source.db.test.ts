import { describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { eq, sql } from "drizzle-orm";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { setTestEnv } from "../../../test/helpers/env";
import { newAgentInbox } from "../../../test/helpers/mail-fixtures";
import { composeMime } from "../../../test/helpers/mime";
import { getDb } from "../../../db/client";
import { messageSourceChunks, messageSources } from "../../../db/schema";
import { SOURCE_CHUNK_BYTES } from "./message-source";

const SECRET = "inbound-secret-for-tests-0123456789";
setTestEnv({ INBOUND_SECRET: SECRET, MAIL_MAX_BYTES: String(12 * 1024 * 1024), MAIL_MAX_BODY_CHARS: "4096", AGENTDRAFT_MAIL_DOMAIN: "agents.test" });
const { api, url } = serveApiForTests();

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const deliver = (raw: Buffer) =>
  api("/api/inbound/raw", { method: "POST", rawBody: raw.toString("latin1"), headers: { authorization: `Bearer ${SECRET}`, "content-type": "message/rfc822" } });
/** The response's bytes as they arrive, or the error that ended the stream. */
async function download(path: string, key: string) {
  const res = await fetch(url() + path, { headers: { authorization: `Bearer ${key}` } });
  const bytes = await res.arrayBuffer().then((b) => Buffer.from(b), (err: Error) => err);
  return { res, bytes };
}

describe("a message's source, stored once", () => {
  it("serves a multi-MB attachment streamed out of the source, byte-exact, beside small ones, with the raw source itself", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const big = randomBytes(6 * 1024 * 1024 + 123);
    const raw = await composeMime({
      from: "bob@team.test",
      to: inbox.address,
      subject: "the dataset",
      text: "attached",
      attachments: [
        { filename: "notes.txt", content: "first" },
        { filename: "dataset.bin", content: big, contentType: "application/octet-stream" },
        { filename: "chart.png", content: Buffer.from("89504e470d0a1a0a", "hex"), contentType: "image/png", cid: "chart@team.test" },
      ],
    });
    const res = await deliver(raw);
    expect(res.status).toBe(200);
    const id = res.json.deliveries[0].message_id as string;
    const msg = await api(`/api/v1/messages/${id}`, { key });
    expect(msg.json.attachments.map((a: { filename: string; size: number; sha256: string }) => [a.filename, a.size, a.sha256])).toEqual([
      ["notes.txt", 5, sha256("first")],
      ["dataset.bin", big.length, sha256(big)],
      ["chart.png", 8, sha256(Buffer.from("89504e470d0a1a0a", "hex"))],
    ]);

    const [notes, dataset, chart] = msg.json.attachments as { id: string }[];
    const got = await download(`/api/v1/messages/${id}/attachments/${dataset!.id}`, key);
    expect(got.res.status).toBe(200);
    expect(got.res.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.res.headers.get("content-length")).toBe(String(big.length));
    expect(got.res.headers.get("etag")).toBe(`"${sha256(big)}"`);
    expect(got.res.headers.get("content-disposition")).toBe(`attachment; filename="dataset.bin"; filename*=UTF-8''dataset.bin`);
    expect(sha256(got.bytes as Buffer)).toBe(sha256(big));
    expect((await download(`/api/v1/messages/${id}/attachments/${notes!.id}`, key)).bytes).toEqual(Buffer.from("first"));
    const png = await download(`/api/v1/messages/${id}/attachments/${chart!.id}`, key);
    expect(png.res.headers.get("content-type")).toBe("image/png");
    expect(png.bytes).toEqual(Buffer.from("89504e470d0a1a0a", "hex"));

    // The raw source, exactly as received; stored compressed in chunks, the attachments not again.
    const source = await download(`/api/v1/messages/${id}/raw`, key);
    expect(source.res.headers.get("content-type")).toBe("message/rfc822");
    expect(source.res.headers.get("etag")).toBe(`"${sha256(raw)}"`);
    expect(sha256(source.bytes as Buffer)).toBe(sha256(raw));
    const db = await getDb();
    const [stored] = (await db.execute(sql`select count(*)::int as chunks, sum(length(bytes))::int as bytes from message_source_chunks where message_id = ${id}`)).rows as { chunks: number; bytes: number }[];
    expect(stored!.chunks).toBe(Math.ceil(stored!.bytes / SOURCE_CHUNK_BYTES));
    expect(stored!.chunks).toBeGreaterThan(1);
    expect(stored!.bytes).toBeLessThan(raw.length);
    const columns = (await db.execute(sql`select column_name from information_schema.columns where table_name = 'attachments'`)).rows.map((r) => (r as { column_name: string }).column_name);
    expect(columns).not.toContain("content");
  });

  it("ends a download with an error rather than send bytes other than those recorded", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const original = Buffer.alloc(400_000, 7);
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "blob", text: "x", attachments: [{ filename: "blob.bin", content: original }] });
    const id = (await deliver(raw)).json.deliveries[0].message_id as string;
    const [att] = (await api(`/api/v1/messages/${id}`, { key })).json.attachments as { id: string }[];
    // The stored source replaced by one whose attachment differs in a byte.
    const tampered = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "blob", text: "x", attachments: [{ filename: "blob.bin", content: Buffer.concat([original.subarray(1), Buffer.from([8])]) }] });
    const db = await getDb();
    await db.delete(messageSourceChunks).where(eq(messageSourceChunks.messageId, id));
    await db.insert(messageSourceChunks).values({ messageId: id, seq: 0, bytes: zlib.gzipSync(tampered) });
    const got = await download(`/api/v1/messages/${id}/attachments/${att!.id}`, key);
    expect(got.bytes).toBeInstanceOf(Error);
  });

  it("serves sources stored before compression (one identity chunk, as the migration leaves them) the same way", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const content = randomBytes(300_000);
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "legacy", text: "x", attachments: [{ filename: "a.txt", content: "a" }, { filename: "b.bin", content }] });
    const id = (await deliver(raw)).json.deliveries[0].message_id as string;
    const db = await getDb();
    await db.delete(messageSourceChunks).where(eq(messageSourceChunks.messageId, id));
    await db.insert(messageSourceChunks).values({ messageId: id, seq: 0, bytes: raw });
    await db.update(messageSources).set({ encoding: "identity" }).where(eq(messageSources.messageId, id));
    const [, b] = (await api(`/api/v1/messages/${id}`, { key })).json.attachments as { id: string }[];
    expect(sha256((await download(`/api/v1/messages/${id}/attachments/${b!.id}`, key)).bytes as Buffer)).toBe(sha256(content));
    expect(sha256((await download(`/api/v1/messages/${id}/raw`, key)).bytes as Buffer)).toBe(sha256(raw));
  });

  it("bounds stored bodies at MAIL_MAX_BODY_CHARS with body_truncated; the whole text stays in the raw source", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const text = `${"long line of text ".repeat(1000)}THE END`;
    const html = `<p>${"<b>bold</b> words ".repeat(1000)}</p><p>THE END</p>`;
    const raw = await composeMime({ from: "bob@team.test", to: inbox.address, subject: "long", text, html });
    const id = (await deliver(raw)).json.deliveries[0].message_id as string;
    const msg = (await api(`/api/v1/messages/${id}`, { key })).json;
    expect(msg.body_truncated).toBe(true);
    expect(msg.text.length).toBeLessThanOrEqual(4096);
    expect(msg.markdown.length).toBeLessThanOrEqual(4096);
    expect(msg.html_sanitized.length).toBeLessThanOrEqual(4096);
    expect(msg.html_sanitized).not.toMatch(/<[^>]*$/); // not cut inside a tag
    expect(msg.text).not.toContain("THE END");
    expect(msg.text_reply.length).toBeLessThanOrEqual(4096);
    const source = await download(`/api/v1/messages/${id}/raw`, key);
    expect((source.bytes as Buffer).toString()).toContain("THE END");

    const short = (await deliver(await composeMime({ from: "bob@team.test", to: inbox.address, subject: "short", text: "brief" }))).json.deliveries[0].message_id as string;
    expect((await api(`/api/v1/messages/${short}`, { key })).json).toMatchObject({ body_truncated: false, text: "brief" });
  });

  it("keeps what an agent sends whole (the body limit is for received mail)", async () => {
    const { key, inbox } = await newAgentInbox(api);
    const text = "sent words ".repeat(2000);
    const sent = await api(`/api/v1/inboxes/${inbox.id}/messages`, { key, body: { to: ["carol@team.test"], subject: "long", text } });
    expect(sent.status).toBe(201);
    expect(sent.json).toMatchObject({ body_truncated: false });
    expect(sent.json.text).toBe(text.trimEnd());
  });
});
