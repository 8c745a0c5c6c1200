// npm run bench:mail [-- --db postgres] — raw MIME to stored and outboxed, beside mailparser's bare parse;
// and the send path (compose, parse back, thread, store, outbox, audit; captured, no provider call).
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { simpleParser } from "mailparser";
import { benchDatabase, connectBenchDatabase, machine, writeResults } from "./setup";
import { newWorkspaceWithKey } from "./fixtures";
import { closeDb } from "../db/client";
import { runLoad } from "../lib/loadtest/run-load";
import { table, type Summary } from "../lib/loadtest/stats";
import { createAgent } from "../lib/agents/create-agent";
import { createInbox } from "../lib/mail/inboxes";
import { ingestMessage } from "../lib/mail/inbound/ingest-message";
import { sendMessage } from "../lib/mail/outbound/send-message";
import { setEnvForBench } from "./env";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CORPUS = path.resolve("test/corpora/mime");
const corpus = fs.readdirSync(CORPUS).filter((f) => f.endsWith(".eml")).map((f) => fs.readFileSync(path.join(CORPUS, f)));

/** The same message with a fresh Message-ID, so every ingestion stores (no duplicates). */
function fresh(raw: Buffer): Buffer {
  const text = raw.toString("latin1").replace(/^message-id:[^\r\n]*(\r?\n[ \t][^\r\n]*)*\r?\n/im, "");
  return Buffer.from(`Message-ID: <${randomUUID()}@bench.test>\r\n${text}`, "latin1");
}

setEnvForBench({ MAIL_MAX_BYTES: String(50 * 1024 * 1024) });
const db = await benchDatabase(process.argv);
const rows: { layer: string; clients: number; summary: Summary }[] = [];
try {
  await connectBenchDatabase(db.env);
  const { workspace } = await newWorkspaceWithKey("bench-mail");
  const actor = { type: "operator" as const, workspaceId: workspace.id, name: "bench" };
  const inboxes: { id: string; address: string }[] = [];
  for (let i = 0; i < 8; i++) {
    const agent = await createAgent(actor, { name: `mail-agent-${i}` });
    inboxes.push(await createInbox(actor, { agent_id: agent.id, username: `bench-${i}-${Date.now()}`, allow_senders: [], block_senders: [] }));
  }
  const addresses = inboxes.map((i) => i.address);
  let n = 0;
  for (const clients of [1, 8]) {
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
          subject: `Staging cluster booking ${n}`,
          text: "Booked: the staging cluster is yours 15:00-17:00.\n\nThe ops agent",
          html: "<p>Booked: the staging cluster is yours <b>15:00-17:00</b>.</p><p>The ops agent</p>",
        });
        return m.status;
      }),
    });
    console.error(`done: ${clients} client(s)`);
  }
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
const file = writeResults(`mail-${db.label}`, { benchmark: "mail", database: db.label, seconds: SECONDS, machine: machine(), rows });
console.log(`\nresults: ${file}\nreproduce: npm run bench:mail${db.label === "postgres" ? " -- --db postgres" : ""}`);
