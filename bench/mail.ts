// npm run bench:mail [-- --db postgres] — raw MIME to stored and outboxed, beside mailparser's bare parse;
// and the send path (compose, parse back, thread, store, outbox, audit; captured, no provider call).
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import { benchDatabase, connectBenchDatabase, machine, writeResults } from "./setup";
import { newWorkspaceWithKey } from "./fixtures";
import { closeDb } from "../db/client";
import { runLoad } from "../cli/loadtest/run-load";
import { table, type Summary } from "../cli/loadtest/stats";
import { createAgent } from "../lib/domains/agents/create-agent";
import { createInbox } from "../lib/domains/mail/inboxes";
import { ingestMessage } from "../lib/domains/mail/inbound/ingest-message";
import { sendMessage } from "../lib/domains/mail/outbound/send-message";
import { setEnvForBench } from "./env";
import { startApiServer } from "../test/helpers/api-server";
import { hostileCorpus } from "../test/helpers/hostile-mail";
import { closeParsePool } from "../lib/domains/mail/inbound/parse-pool";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CORPUS = path.resolve("test/corpora/mime");
const corpus = fs.readdirSync(CORPUS).filter((f) => f.endsWith(".eml")).map((f) => fs.readFileSync(path.join(CORPUS, f)));

/** The same message with a fresh Message-ID, so every ingestion stores (no duplicates). */
function fresh(raw: Buffer): Buffer {
  const text = raw.toString("latin1").replace(/^message-id:[^\r\n]*(\r?\n[ \t][^\r\n]*)*\r?\n/im, "");
  return Buffer.from(`Message-ID: <${randomUUID()}@bench.test>\r\n${text}`, "latin1");
}

setEnvForBench({ MAIL_MAX_BYTES: String(50 * 1024 * 1024) });
const hostileRows: { workers: string; message: string; status: number; "ingest ms": number; "probe max ms": number; "probe p50 ms": number }[] = [];

/**
 * Runs `work` while a probe GETs /api/ping every 10 ms on the same event loop; returns the
 * work's result and time, and the probe's worst and median latency.
 */
async function probed<T>(url: string, work: () => Promise<T>): Promise<{ result: T; ms: number; max: number; p50: number }> {
  const latencies: number[] = [];
  let probing = true;
  const probe = (async () => {
    // Latency from when the probe was due: a blocked event loop delays the timer too, and
    // that wait is exactly what a client of a stalled server sees.
    while (probing) {
      const due = performance.now() + 10;
      await new Promise((r) => setTimeout(r, 10));
      // A keep-alive socket the server closed during a stall resets: retried once, like a client would.
      await fetch(`${url}/api/ping`).then((r) => r.text()).catch(() => fetch(`${url}/api/ping`).then((r) => r.text()));
      latencies.push(performance.now() - due);
    }
  })();
  await new Promise((r) => setTimeout(r, 50));
  const t = performance.now();
  const result = await work();
  const ms = performance.now() - t;
  await new Promise((r) => setTimeout(r, 50));
  probing = false;
  await probe;
  latencies.sort((a, b) => a - b);
  return { result, ms, max: latencies.at(-1) ?? 0, p50: latencies[Math.floor(latencies.length / 2)] ?? 0 };
}

/** Each hostile message through the HTTP ingress while a probe measures how long other requests wait; then its attachment downloaded. */
async function hostileMail(apiKey: string, actor: { type: "operator"; workspaceId: string; name: string }) {
  const secret = "bench-inbound-secret-0123456789";
  setEnvForBench({ INBOUND_SECRET: secret, MAIL_MAX_BYTES: String(10 * 1024 * 1024) });
  const agent = await createAgent(actor, { name: `hostile-${Date.now()}` });
  const inbox = await createInbox(actor, { agent_id: agent.id, username: `hostile-${Date.now()}`, allow_senders: [], block_senders: [] });
  const server = await startApiServer();
  const out: typeof hostileRows = [];
  const row = (workers: string, message: string, status: number, r: { ms: number; max: number; p50: number }) => {
    out.push({ workers, message, status, "ingest ms": Math.round(r.ms), "probe max ms": Math.round(r.max), "probe p50 ms": Math.round(r.p50) });
    console.error(`hostile (${workers}): ${message} → ${status} in ${Math.round(r.ms)} ms, probe max ${Math.round(r.max)} ms`);
  };
  try {
    for (const workers of ["on", "off"]) {
      await closeParsePool();
      setEnvForBench({ MAIL_PARSE_WORKERS: workers === "on" ? "2" : "0" });
      // Warm the pool (thread start and module load) before measuring.
      await ingestMessage(fresh(corpus[0]!), { recipients: [inbox.address], source: "raw" });
      let withAttachment: string | null = null;
      for (const c of hostileCorpus(inbox.address)) {
        const r = await probed(server.url, async () => {
          const res = await fetch(`${server.url}/api/inbound/raw?to=${encodeURIComponent(inbox.address)}`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: new Uint8Array(c.raw) });
          return { status: res.status, json: (await res.json().catch(() => null)) as { deliveries?: { message_id: string }[] } | null };
        });
        if (c.name.includes("MB attachment")) withAttachment = r.result.json?.deliveries?.[0]?.message_id ?? null;
        row(workers, c.name, r.result.status, r);
      }
      if (withAttachment) {
        const message = (await (await fetch(`${server.url}/api/v1/messages/${withAttachment}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { attachments: { id: string; size: number }[] };
        const att = message.attachments.at(-1)!;
        const r = await probed(server.url, async () => {
          const res = await fetch(`${server.url}/api/v1/messages/${withAttachment}/attachments/${att.id}`, { headers: { authorization: `Bearer ${apiKey}` } });
          const bytes = (await res.arrayBuffer()).byteLength;
          return { status: bytes === att.size ? res.status : 0 };
        });
        row(workers, `download that ${Math.round(att.size / 1024 / 1024)} MB attachment`, r.result.status, r);
      }
    }
  } finally {
    await server.close();
    await closeParsePool();
  }
  return out;
}

/** 200 MB of DATA at a 10 MB limit into the SMTP listener: the answer, and the process's peak RSS. */
async function smtpFlood() {
  const { createSmtpListener } = await import("../lib/domains/mail/inbound/smtp-listener");
  const net = await import("node:net");
  const listener = createSmtpListener({ resolver: async () => Promise.reject(Object.assign(new Error("no dns in bench"), { code: "ENOTFOUND" })) });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.server.address() as { port: number }).port;
  const socket = net.connect(port, "127.0.0.1");
  let buffer = "";
  const replies: string[] = [];
  socket.on("data", (d) => {
    buffer += d.toString();
    let i;
    while ((i = buffer.indexOf("\r\n")) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      if (/^\d{3} /.test(line)) replies.push(line);
    }
  });
  const next = async (n: number) => { while (replies.length < n) await new Promise((r) => setTimeout(r, 5)); return replies[n - 1]!; };
  await next(1);
  // RCPT is refused for unknown addresses: the bench's own inbox.
  socket.write("EHLO bench\r\n"); await next(2);
  socket.write("MAIL FROM:<flood@bench.test>\r\n"); await next(3);
  socket.write(`RCPT TO:<${floodAddress}>\r\n`); await next(4);
  socket.write("DATA\r\n"); await next(5);
  const base = process.memoryUsage().rss;
  let peak = base;
  const chunk = Buffer.alloc(64 * 1024, "x\r\n".repeat(21_846).slice(0, 64 * 1024));
  const total = 200 * 1024 * 1024;
  for (let sent = 0; sent < total; sent += chunk.length) {
    if (!socket.write(chunk)) await new Promise((r) => socket.once("drain", r));
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  socket.write("\r\n.\r\n");
  const reply = await next(6);
  peak = Math.max(peak, process.memoryUsage().rss);
  socket.end("QUIT\r\n");
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  const mb = (b: number) => Math.round(b / 1024 / 1024);
  return { streamed_mb: mb(total), limit_mb: mb(Number(process.env.MAIL_MAX_BYTES)), reply, base_rss_mb: mb(base), peak_rss_mb: mb(peak) };
}
let floodAddress = "";
let flood: Awaited<ReturnType<typeof smtpFlood>> | undefined;
const db = await benchDatabase(process.argv);
const rows: { layer: string; clients: number; summary: Summary }[] = [];
try {
  await connectBenchDatabase(db.env);
  const { workspace, key } = await newWorkspaceWithKey("bench-mail");
  const actor = { type: "operator" as const, workspaceId: workspace.id, name: "bench" };
  const inboxes: { id: string; address: string }[] = [];
  for (let i = 0; i < 8; i++) {
    const agent = await createAgent(actor, { name: `mail-agent-${i}` });
    inboxes.push(await createInbox(actor, { agent_id: agent.id, username: `bench-${i}-${Date.now()}`, allow_senders: [], block_senders: [] }));
  }
  const addresses = inboxes.map((i) => i.address);
  floodAddress = addresses[0]!;
  let n = 0;
  for (const clients of process.env.BENCH_HOSTILE_ONLY ? [] : [1, 8]) {
    rows.push({
      layer: "mailparser only (the limit)",
      clients,
      summary: await runLoad({ concurrency: clients, seconds: SECONDS }, async () => {
        await simpleParser(corpus[n++ % corpus.length]!);
        return "parsed";
      }),
    });
    rows.push({
      layer: "ingest: parse, sanitise, store, outbox, audit",
      clients,
      summary: await runLoad({ concurrency: clients, seconds: SECONDS }, async (client) => {
        const [d] = await ingestMessage(fresh(corpus[n++ % corpus.length]!), { recipients: [addresses[client % addresses.length]!], source: "raw" });
        return d?.message_id ? "stored" : (d?.refused ?? "none");
      }),
    });
    rows.push({
      layer: "send: compose, parse back, thread, store, outbox, audit",
      clients,
      summary: await runLoad({ concurrency: clients, seconds: SECONDS }, async (client) => {
        const m = await sendMessage(actor, inboxes[client % inboxes.length]!.id, {
          to: [`person-${n++ % 50}@bench.test`],
          cc: [],
          attachments: [],
          subject: `Staging cluster booking ${n}`,
          text: "Booked: the staging cluster is yours 15:00-17:00.\n\nThe ops agent",
          html: "<p>Booked: the staging cluster is yours <b>15:00-17:00</b>.</p><p>The ops agent</p>",
        });
        return m.status;
      }),
    });
    console.error(`done: ${clients} client(s)`);
  }
  hostileRows.push(...(await hostileMail(key, actor)));
  flood = await smtpFlood();
  await closeDb();
} finally {
  await db.drop();
}

console.log(`\nMail — inbound: the ${corpus.length} corpus messages cycled; send: a short HTML message; ${SECONDS} s per row, database: ${db.label}\n`);
console.log(
  table(
    rows.map((r) => ({
      layer: r.layer,
      clients: r.clients,
      "msgs/s": r.summary.per_second,
      "p50 ms": r.summary.p50_ms,
      "p99 ms": r.summary.p99_ms,
      outcomes: Object.entries(r.summary.outcomes).map(([k, v]) => `${k}:${v}`).join(" "),
    })),
  ),
);
console.log(`\nHostile mail (issue 15): each message POSTed to /api/inbound/raw of an in-process server while a probe GETs /api/ping every 10 ms on the same event loop, then the 7 MB attachment downloaded; parse workers on (MAIL_PARSE_WORKERS=2) and off (0)\n`);
console.log(table(hostileRows));
const worst = (workers: string) => Math.max(...hostileRows.filter((r) => r.workers === workers).map((r) => r["probe max ms"]));
console.log(`\nworst probe latency: ${worst("on")} ms with parse workers, ${worst("off")} ms without`);
if (flood) console.log(`SMTP: ${flood.streamed_mb} MB streamed at a ${flood.limit_mb} MB limit → ${flood.reply}; peak RSS ${flood.peak_rss_mb} MB (${flood.base_rss_mb} MB before)`);
const file = writeResults(`mail-${db.label}`, { benchmark: "mail", database: db.label, seconds: SECONDS, machine: machine(), rows, hostile: hostileRows, smtp_flood: flood });
console.log(`\nresults: ${file}\nreproduce: npm run bench:mail${db.label === "postgres" ? " -- --db postgres" : ""}`);
