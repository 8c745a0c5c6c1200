// npm run bench:webhooks [-- --db postgres] [--rate 300] [--seconds 10]
// Events committed at a steady rate, delivered by the embedded engine to a loopback receiver:
// delivered events/s and commit-to-receipt lag, beside the same receiver fed directly (the
// producer POSTs each signed body itself after commit), and with a noisy neighbour (another
// tenant whose endpoint hangs) sharing the engine.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { benchDatabase, connectBenchDatabase, machine, writeResults } from "./setup";
import { setEnvForBench } from "./env";
import { closeDb } from "../db/client";
import { transaction } from "../db/transaction";
import { emitEvent } from "../lib/platform/events/emit-event";
import { createEndpoint } from "../lib/domains/webhooks/create-endpoint";
import { createWorkspace } from "../lib/domains/workspaces/create-workspace";
import { operatorActor } from "../lib/platform/actor";
import { enabledCrons, enabledKinds } from "../lib/composition/job-kinds";
import { createEngine } from "../lib/platform/jobs/engine";
import { acquireRunnerLock } from "../lib/platform/jobs/runner-lock";
import { setLocalEngine } from "../lib/platform/jobs/schedule";
import { signedHeaders } from "../lib/domains/webhooks/sign";
import { webhookBody } from "../lib/domains/webhooks/deliver";
import { percentile, table } from "../cli/loadtest/stats";

const arg = (name: string, fallback: number) => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : fallback);
const RATE = arg("rate", 300);
const SECONDS = arg("seconds", 10);
const CONCURRENCY = arg("concurrency", 100);

setEnvForBench({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32", WEBHOOK_TIMEOUT_MS: "10000" });

/** A receiver on loopback that records when each webhook-id first arrived. */
async function receiver(reply: { status: number; delayMs: number } = { status: 200, delayMs: 0 }) {
  const arrived = new Map<string, number>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      const id = String(req.headers["webhook-id"]);
      if (!arrived.has(id)) arrived.set(id, performance.now());
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(reply.status).end("ok");
      }, reply.delayMs).unref();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    requests: () => requests,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Commits `rate` events a second for `seconds`, each in its own transaction; returns commit times by event id. */
async function produce(workspaceId: string, rate: number, seconds: number, afterCommit?: (event: Awaited<ReturnType<typeof emitEvent>>) => Promise<void>) {
  const actor = operatorActor(workspaceId);
  const committed = new Map<string, number>();
  const started = performance.now();
  let sent = 0;
  let inFlight = 0;
  let behind = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      const target = Math.min(Math.floor(elapsed * rate), rate * seconds);
      while (sent < target) {
        if (inFlight >= 200) {
          behind++;
          break;
        }
        sent++;
        inFlight++;
        void transaction((tx) => emitEvent(tx, actor, { type: "hold.created", data: { n: sent } }))
          .then(async (event) => {
            committed.set(event.id, performance.now());
            await afterCommit?.(event);
          })
          .finally(() => inFlight--);
      }
      if (sent >= rate * seconds && inFlight === 0) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  return { committed, seconds: (performance.now() - started) / 1000, behind };
}

async function waitFor(check: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

function summarize(label: string, committed: Map<string, number>, arrived: Map<string, number>, producedSeconds: number) {
  const lags = [...committed].filter(([id]) => arrived.has(id)).map(([id, at]) => arrived.get(id)! - at).sort((a, b) => a - b);
  const first = Math.min(...committed.values());
  const last = Math.max(...[...committed.keys()].map((id) => arrived.get(id) ?? 0));
  return {
    path: label,
    committed: committed.size,
    "committed/s": Math.round(committed.size / producedSeconds),
    delivered: lags.length,
    "delivered/s": Math.round(lags.length / ((last - first) / 1000)),
    "lag p50 ms": Math.round(percentile(lags, 50)),
    "lag p99 ms": Math.round(percentile(lags, 99)),
    "lag max ms": Math.round(lags[lags.length - 1] ?? NaN),
    lost: committed.size - lags.length,
  };
}

const db = await benchDatabase(process.argv);
const rows: ReturnType<typeof summarize>[] = [];
try {
  await connectBenchDatabase(db.env);
  const quiet = await createWorkspace({ name: "bench-webhooks" });
  const fast = await receiver();
  const endpoint = await createEndpoint(operatorActor(quiet.id), { url: `${fast.url}/hooks` });

  // 1. The receiver fed directly: the producer signs and POSTs each event itself after commit
  // (a workspace with no endpoint, so the engine has nothing of it to deliver later).
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const bare = await createWorkspace({ name: "bench-direct" });
  const direct = await produce(bare.id, RATE, SECONDS, async (event) => {
    const body = webhookBody(event);
    await new Promise<void>((resolve) => {
      const req = http.request(`${fast.url}/direct`, { method: "POST", agent, headers: { ...signedHeaders([endpoint.secret], event.id, Math.floor(Date.now() / 1000), body), "content-type": "application/json" } }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", () => resolve());
      req.end(body);
    });
  });
  rows.push(summarize("direct: producer POSTs after commit", direct.committed, fast.arrived, direct.seconds));
  console.error("done: direct");

  // 2. The embedded engine delivers (the outbox written with the event; one run per delivery).
  const engine = createEngine({ kinds: enabledKinds(), crons: enabledCrons(), concurrency: CONCURRENCY, idlePollMs: 2000, acquireLock: () => acquireRunnerLock() });
  setLocalEngine(engine);
  engine.start();
  fast.arrived.clear();
  const viaEngine = await produce(quiet.id, RATE, SECONDS);
  await waitFor(() => [...viaEngine.committed.keys()].every((id) => fast.arrived.has(id)), 60_000);
  rows.push(summarize("embedded engine", viaEngine.committed, fast.arrived, viaEngine.seconds));
  console.error("done: embedded engine");

  // 3. The same, while another tenant's endpoint hangs 10 s per request and then fails (500).
  const noisyWs = await createWorkspace({ name: "bench-noisy" });
  const hanging = await receiver({ status: 500, delayMs: 10_000 });
  await createEndpoint(operatorActor(noisyWs.id), { url: `${hanging.url}/hangs` });
  fast.arrived.clear();
  const [withNeighbour] = await Promise.all([produce(quiet.id, RATE, SECONDS), produce(noisyWs.id, Math.round(RATE / 3), SECONDS)]);
  await waitFor(() => [...withNeighbour.committed.keys()].every((id) => fast.arrived.has(id)), 60_000);
  rows.push(summarize(`embedded engine, beside a tenant whose endpoint hangs (${Math.round(RATE / 3)} events/s)`, withNeighbour.committed, fast.arrived, withNeighbour.seconds));
  console.error("done: noisy neighbour");

  await hanging.close(); // its requests in flight fail now, not after the database is gone
  await engine.stop(5_000);
  setLocalEngine(undefined);
  agent.destroy();
  await fast.close();
  await closeDb();
} finally {
  await db.drop();
}

console.log(`\nWebhooks — ${RATE} events/s for ${SECONDS} s, each committed in its own transaction, to a loopback receiver; engine concurrency ${CONCURRENCY}; database: ${db.label}\n`);
console.log(table(rows));
const file = writeResults(`webhooks-${db.label}`, { benchmark: "webhooks", database: db.label, rate: RATE, seconds: SECONDS, concurrency: CONCURRENCY, machine: machine(), rows });
console.log(`\nresults: ${file}\nreproduce: npm run bench:webhooks -- ${db.label === "postgres" ? "--db postgres " : ""}--rate ${RATE} --seconds ${SECONDS}`);
process.exit(0);
