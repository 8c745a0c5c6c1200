import { afterAll, beforeAll, describe, expect, it } from "vitest";
import net, { type AddressInfo } from "node:net";
import nodemailer from "nodemailer";
import { eq } from "drizzle-orm";
import { newAgent, newWorkspace } from "../../../../test/helpers/fixtures";
import { setTestEnv } from "../../../../test/helpers/env";
import { getDb } from "../../../../db/client";
import { messages } from "../../../../db/schema";
import { createInbox } from "../inboxes";
import { operatorActor } from "../../../platform/actor";
import { createSmtpListener } from "./smtp-listener";
import { resetEnvCache } from "../../../platform/config/env";
import { generateKeyPairSync } from "node:crypto";
import { dkimSign, type DNSResolver } from "mailauth";
import { and } from "drizzle-orm";
import { auditEntries } from "../../../../db/schema";
import { sealAuditChain } from "../../../platform/audit/seal-chain";

// DNS for SPF, DKIM and DMARC, from a fixed zone: nothing leaves the machine.
const dkimKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ZONE: Record<string, string> = {
  "trusted.test": "v=spf1 ip4:127.0.0.1 -all",
  "mail._domainkey.trusted.test": `v=DKIM1; k=rsa; p=${dkimKeys.publicKey.export({ type: "spki", format: "der" }).toString("base64")}`,
  "_dmarc.trusted.test": "v=DMARC1; p=reject",
};
const zoneResolver: DNSResolver = async (name, rrtype) => {
  const txt = ZONE[name.toLowerCase()];
  if (rrtype === "TXT" && txt) return [[txt]];
  throw Object.assign(new Error(`${name} ${rrtype}: no such record`), { code: "ENOTFOUND" });
};

/** A bare SMTP client over a socket: send a line, read the reply (multi-line replies joined). */
function rawSmtp(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  let buffer = "";
  const waiters: ((reply: string) => void)[] = [];
  socket.on("data", (d) => {
    buffer += d.toString("latin1");
    for (;;) {
      const m = /^(\d{3})(?: [^\r\n]*)?\r\n/m.exec(buffer);
      if (!m) break;
      const end = m.index + m[0].length;
      const reply = buffer.slice(0, end);
      buffer = buffer.slice(end);
      waiters.shift()?.(reply);
    }
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  const reply = () => new Promise<string>((resolve) => waiters.push(resolve));
  const command = async (line: string) => {
    const r = reply();
    socket.write(line + "\r\n");
    return r;
  };
  /** Writes `chunk` until `bytes` are sent, honouring backpressure. */
  const stream = async (chunk: Buffer, bytes: number, onProgress?: () => void) => {
    for (let sent = 0; sent < bytes; sent += chunk.length) {
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once("drain", resolve));
      onProgress?.();
    }
  };
  return { socket, reply, command, stream, closed };
}

setTestEnv({ MAIL_MAX_BYTES: "100000", AGENTDRAFT_MAIL_DOMAIN: "agents.test", SMTP_MAX_RECIPIENTS: "3" });

describe("the SMTP listener, with nodemailer as the sending client", () => {
  let server: ReturnType<typeof createSmtpListener>;
  let port: number;
  beforeAll(async () => {
    server = createSmtpListener({ resolver: zoneResolver });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const transport = () => nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, tls: { rejectUnauthorized: false } });

  it("accepts mail for a known inbox and stores it through the same ingestion", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "smtp-agent");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-ops", allow_senders: [], block_senders: [] });
    const info = await transport().sendMail({ from: "bob@team.test", to: inbox.address, subject: "over SMTP", text: "hello by smtp" });
    expect(info.accepted).toEqual([inbox.address]);
    const db = await getDb();
    const stored = await db.select().from(messages).where(eq(messages.inboxId, inbox.id));
    expect(stored.map((m) => [m.subject, m.text])).toEqual([["over SMTP", "hello by smtp"]]);
    expect(info.response).toContain(stored[0]!.id);
  });

  it("refuses unknown recipients with 550", async () => {
    await expect(transport().sendMail({ from: "bob@team.test", to: "nobody@agents.test", subject: "x", text: "y" })).rejects.toMatchObject({
      responseCode: 550,
    });
  });

  it("streams DATA far past the limit with flat memory, then answers 552", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "flood");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-flood", allow_senders: [], block_senders: [] });
    const c = rawSmtp(port);
    expect(await c.reply()).toMatch(/^220/);
    expect(await c.command("EHLO flood.test")).toMatch(/^250/);
    expect(await c.command("MAIL FROM:<flood@attacker.test>")).toMatch(/^250/);
    expect(await c.command(`RCPT TO:<${inbox.address}>`)).toMatch(/^250/);
    expect(await c.command("DATA")).toMatch(/^354/);
    global.gc?.();
    const base = process.memoryUsage().arrayBuffers;
    let peak = base;
    const line = Buffer.from(`${"x".repeat(1022)}\r\n`);
    const chunk = Buffer.concat(Array.from({ length: 64 }, () => line)); // 64 KB
    // 2,000 times the 100 kB limit. Before issue 15 the listener kept all of it; now it keeps
    // none past the limit (what remains of the peak is garbage not yet collected and socket buffers).
    await c.stream(chunk, 200 * 1024 * 1024, () => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)));
    const answer = c.reply();
    c.socket.write("Subject: end\r\n.\r\n");
    expect(await answer).toMatch(/^552/);
    expect(peak - base).toBeLessThan(80 * 1024 * 1024);
    c.socket.end("QUIT\r\n");
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(0);
  });

  it("takes at most SMTP_MAX_RECIPIENTS per message (452 for the rest)", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "many");
    const addresses: string[] = [];
    for (let i = 0; i < 4; i++) addresses.push((await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: `smtp-many-${i}`, allow_senders: [], block_senders: [] })).address);
    const c = rawSmtp(port);
    await c.reply();
    await c.command("EHLO many.test");
    await c.command("MAIL FROM:<many@attacker.test>");
    for (const address of addresses.slice(0, 3)) expect(await c.command(`RCPT TO:<${address}>`)).toMatch(/^250/);
    expect(await c.command(`RCPT TO:<${addresses[3]}>`)).toMatch(/^452 4\.5\.3/);
    c.socket.end("QUIT\r\n");
  });

  it("refuses hostile mail with a permanent 554 naming the limit, never a temporary failure", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "hostile");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-hostile", allow_senders: [], block_senders: [] });
    const raw = `From: m@attacker.test\r\nTo: ${inbox.address}\r\nSubject: deep\r\nContent-Type: text/html\r\n\r\n${"<b>".repeat(2_000)}\r\n`;
    await expect(transport().sendMail({ envelope: { from: "m@attacker.test", to: [inbox.address] }, raw })).rejects.toMatchObject({
      responseCode: 554,
      response: expect.stringMatching(/MAIL_MAX_HTML_DEPTH/),
    });
  });

  it("caps clients and the time one connection may take", async () => {
    process.env.SMTP_MAX_CLIENTS = "2";
    process.env.SMTP_MAX_CONNECTION_SECONDS = "1";
    resetEnvCache();
    const small = createSmtpListener();
    try {
      await new Promise<void>((resolve) => small.listen(0, "127.0.0.1", resolve));
      const smallPort = (small.server.address() as AddressInfo).port;
      const connecting = Date.now();
      const [a, b] = [rawSmtp(smallPort), rawSmtp(smallPort)];
      expect(await a.reply()).toMatch(/^220/);
      expect(await b.reply()).toMatch(/^220/);
      const third = rawSmtp(smallPort);
      expect(await third.reply()).toMatch(/^421/);
      // A client that keeps talking is still cut off, by SMTP_MAX_CONNECTION_SECONDS: the server
      // ends the connection without a word (no 421 idle timeout: every NOOP was answered 250),
      // no sooner than that limit after the client connected.
      let heard = "";
      a.socket.on("data", (d: Buffer) => (heard += d.toString("latin1")));
      const chatter = setInterval(() => a.socket.write("NOOP\r\n"), 100);
      await a.closed;
      clearInterval(chatter);
      const replies = heard.split("\r\n").filter(Boolean);
      expect(replies.length).toBeGreaterThan(0);
      expect(replies.every((r) => r.startsWith("250"))).toBe(true);
      expect(Date.now() - connecting).toBeGreaterThanOrEqual(1_000 - 5);
      b.socket.destroy();
      third.socket.destroy();
    } finally {
      delete process.env.SMTP_MAX_CLIENTS;
      delete process.env.SMTP_MAX_CONNECTION_SECONDS;
      resetEnvCache();
      await new Promise<void>((resolve) => small.close(() => resolve()));
    }
  });

  it("verifies SPF, DKIM and DMARC itself, ignores the sender's Authentication-Results, and admits allow-listed senders only when aligned", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "cfo-desk");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-cfo", allow_senders: ["cfo@trusted.test"], block_senders: [] });
    const message = (subject: string, extra = "") =>
      `${extra}From: cfo@trusted.test\r\nTo: ${inbox.address}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}-${Date.now()}@trusted.test>\r\nDate: Mon, 5 Jan 2026 09:00:00 +0000\r\n\r\nPay invoice 7.\r\n`;

    // Forged: the From of an allow-listed sender, and green verdicts the sender wrote itself.
    const forged = message("forged", "Authentication-Results: smtp-cfo.agents.test; spf=pass; dkim=pass; dmarc=pass\r\n");
    await transport().sendMail({ envelope: { from: "mallory@attacker.test", to: [inbox.address] }, raw: forged });
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toEqual([]);
    await sealAuditChain();
    const [refusal] = await db.select().from(auditEntries).where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "email.refused")));
    expect((refusal!.summary as { reason: string }).reason).toMatch(/not DMARC-authenticated \(dmarc=fail\)/);

    // Genuine: DKIM-signed by trusted.test and sent from the address its SPF record names.
    const genuine = message("genuine");
    // mailauth 4 (the line that runs on Node 20) takes `signatureData`; its bundled types describe 7's options.
    const signOptions = { signatureData: [{ signingDomain: "trusted.test", selector: "mail", privateKey: dkimKeys.privateKey.export({ type: "pkcs8", format: "pem" }) }] };
    const { signatures } = await dkimSign(genuine, signOptions as unknown as Parameters<typeof dkimSign>[1]);
    await transport().sendMail({ envelope: { from: "cfo@trusted.test", to: [inbox.address] }, raw: `${signatures.trimEnd()}\r\n${genuine}` });
    const [stored] = await db.select().from(messages).where(eq(messages.inboxId, inbox.id));
    expect(stored!.headersOfNote).toMatchObject({ spf: "pass", dkim: "pass", dmarc: "pass", auth_checked_by: "agentdraft" });
    expect(stored!.security.auth_failed).toBe(false);
  });

  it("refuses mail over the size limit with 552, storing nothing", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id, "big");
    const inbox = await createInbox(operatorActor(workspace.id), { agent_id: agent.id, username: "smtp-big", allow_senders: [], block_senders: [] });
    await expect(
      transport().sendMail({ from: "bob@team.test", to: inbox.address, subject: "big", text: "x".repeat(150_000) }),
    ).rejects.toMatchObject({ responseCode: 552 });
    const db = await getDb();
    expect(await db.select().from(messages).where(eq(messages.inboxId, inbox.id))).toHaveLength(0);
  });
});
