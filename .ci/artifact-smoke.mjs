#!/usr/bin/env node
// The built artifact alone: copies .next/standalone (the traced server and only the packages it
// loads, what a Vercel function carries) away from the source tree, starts it in production mode
// on a fresh embedded database, and checks what a deployment must do with nothing else around:
// inbound mail parsed on a worker thread within its deadline, a signed webhook delivered, a page
// rendered with its assets. Run after `npm run build`. SMOKE_POSTGRES_URL (a server's admin URL,
// as CI gives) runs it on a fresh database there, dropped after; else on an embedded one (slower to
// migrate). Loopback only.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Webhook } from "standardwebhooks";

const repo = path.resolve(import.meta.dirname, "..");
const standalone = path.join(repo, ".next/standalone");
if (!fs.existsSync(path.join(standalone, "server.js"))) throw new Error("no .next/standalone/server.js: run npm run build first");

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-artifact-"));
const app = path.join(work, "app");
const port = Number(process.env.SMOKE_PORT ?? 3000 + Math.floor(Math.random() * 900));
const base = `http://127.0.0.1:${port}`;
const inboundSecret = randomBytes(24).toString("hex");
const admin = process.env.SMOKE_POSTGRES_URL;
const dbName = `agentdraft_smoke_${randomBytes(4).toString("hex")}`;
const databaseUrl = admin ? Object.assign(new URL(admin), { pathname: `/${dbName}` }).toString() : null;
const env = {
  PATH: process.env.PATH,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_URL_UNPOOLED: databaseUrl } : {}),
  HOME: work,
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  AGENTDRAFT_DATA_DIR: path.join(work, "db"),
  AUTH_SECRET: randomBytes(32).toString("base64"),
  AUTH_URL: base, // production refuses to start without its public URL
  AGENTDRAFT_ENCRYPTION_KEYS: randomBytes(32).toString("base64"),
  MAIL_CAPTURE_ONLY: "1",
  INBOUND_SECRET: inboundSecret,
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1/32",
  MAIL_PARSE_TIMEOUT_MS: "2000",
  // Room for the slow message below (~32 MB, ~4 s to parse alone).
  MAIL_MAX_BYTES: String(40 * 1024 * 1024),
};
const began = performance.now();
const check = (ok, what) => {
  if (!ok) throw new Error(`artifact smoke: ${what}`);
  console.log(`  ok  ${what} [${((performance.now() - began) / 1000).toFixed(1)} s]`);
};
/** Runs CLI commands in one process (each start costs seconds): their JSON outputs, in order. */
function cli(...commands) {
  const script = `
    const { runCli } = await import("./cli/main.ts");
    const argv = ${JSON.stringify(commands)};
    const outs = [];
    for (const args of argv) {
      let text = "";
      const code = await runCli([...args.map((a) => (typeof a === "string" ? a : outs[a[0]][a[1]])), "--json"], { write: (t) => (text += t) });
      if (code !== 0) throw new Error(args.join(" ") + " failed: " + code);
      outs.push(JSON.parse(text));
    }
    console.log(JSON.stringify(outs));
    (await import("./db/client.ts")).closeDb();`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repo, env: { ...env, NODE_ENV: "development" }, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
}

let server;
let receiver;
try {
  // The artifact, away from the source tree: only what the build traced, no TypeScript loader, no devDependencies.
  // Hard links where the temporary directory shares the disk (instant; nothing here writes to them), else a copy.
  const copy = (from, to) => {
    try {
      execFileSync("cp", ["-al", from, to]);
    } catch {
      fs.cpSync(from, to, { recursive: true });
    }
  };
  copy(standalone, app);
  copy(path.join(repo, ".next/static"), path.join(app, ".next/static"));
  check(fs.existsSync(path.join(app, "build/parse-worker.mjs")), "the artifact carries the bundled parse worker");
  for (const absent of ["tsx", "typescript", "vitest", "@playwright/test", "drizzle-kit", "esbuild"]) check(!fs.existsSync(path.join(app, "node_modules", absent)), `and no ${absent}`);

  // The operator's steps before the first start (the CLI from the checkout, as a build step would).
  if (admin) {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`create database ${dbName}`);
    await c.end();
  }
  // [i, field]: a field of the i-th command's output.
  const [, , , { key }] = cli(
    ["db", "migrate"],
    ["workspace", "create", "--name", "Smoke"],
    ["agent", "create", "--workspace", [1, "id"], "--name", "smoke-agent"],
    ["key", "create", "--workspace", [1, "id"], "--agent", [2, "id"]],
  );

  const received = [];
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.end("ok");
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));

  let log = "";
  server = spawn(process.execPath, ["server.js"], { cwd: app, env: { ...env, PORT: String(port), HOSTNAME: "127.0.0.1" }, stdio: ["ignore", "pipe", "pipe"] });
  server.stdout.on("data", (c) => (log += c));
  server.stderr.on("data", (c) => (log += c));
  const started = performance.now();
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the artifact exited (${server.exitCode}):\n${log}`);
    if (await fetch(`${base}/api/ping`).then((r) => r.ok, () => false)) break;
    if (performance.now() - started > 60_000) throw new Error(`the artifact did not answer within 60 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  check(true, `the artifact answers (${Math.round(performance.now() - started)} ms to start)`);

  const api = async (p, init = {}) => {
    const res = await fetch(`${base}${p}`, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers } });
    return { status: res.status, json: await res.json().catch(() => null) };
  };
  const inbox = await api("/api/v1/inboxes", { method: "POST", body: JSON.stringify({ username: "smoke", display_name: "Smoke" }) });
  check(inbox.status === 201, `an inbox is created (${inbox.status})`);
  const endpoint = await api("/api/v1/webhook-endpoints", { method: "POST", body: JSON.stringify({ url: `http://127.0.0.1:${receiver.address().port}/hook`, event_types: ["email.received"] }) });
  check(endpoint.status === 201 && endpoint.json.secret?.startsWith("whsec_"), `a webhook endpoint is created with its secret (${endpoint.status})`);

  const to = inbox.json.address;
  const raw = (subject, body, type = "text/plain") =>
    `From: Alice <alice@example.com>\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${randomBytes(8).toString("hex")}@example.com>\r\nContent-Type: ${type}\r\n\r\n${body}\r\n`;
  const inbound = (text) => fetch(`${base}/api/inbound/raw?to=${encodeURIComponent(to)}`, { method: "POST", body: text, headers: { authorization: `Bearer ${inboundSecret}`, "content-type": "message/rfc822" } });
  const stored = await inbound(raw("Hello", "<p>Hi <script>alert(1)</script>there</p>", "text/html"));
  const storedBody = await stored.json();
  check(stored.status === 200 && storedBody.deliveries?.length === 1, `inbound mail is parsed and stored (${stored.status}${stored.status === 200 ? "" : `: ${JSON.stringify(storedBody)}`})`);
  // Only a worker thread enforces the deadline: on the request's thread this would parse to the end.
  const t = performance.now();
  const slow = await inbound(raw("Slow", "<span>".repeat(200) + "</i>".repeat(8_000_000), "text/html"));
  const slowBody = await slow.json();
  check(slow.status === 422 && slowBody.reason === "parse_timeout" && performance.now() - t < 8_000, `a message slower than MAIL_PARSE_TIMEOUT_MS is refused by its worker's deadline (${slow.status} ${slowBody.reason}, ${Math.round(performance.now() - t)} ms)`);
  check(!/parse worker not deployed|parse worker .* could not start|parse worker failed/.test(log), "the server logged no parse worker failure");

  for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  check(received.length >= 1, "the email.received webhook is delivered");
  const payload = new Webhook(endpoint.json.secret).verify(received[0].body, received[0].headers);
  check(payload.type === "email.received", "its Standard Webhooks signature verifies with the endpoint's secret");

  const page = await fetch(`${base}/sign-in`);
  const html = await page.text();
  check(page.status === 200 && /<html/i.test(html), `a page renders (${page.status})`);
  const asset = html.match(/\/_next\/static\/[^"']+\.(?:js|css)/)?.[0];
  check(asset && (await fetch(`${base}${asset}`)).status === 200, `its assets are served (${asset})`);
} finally {
  if (server && server.exitCode === null) {
    server.kill();
    await new Promise((r) => server.once("exit", r));
  }
  receiver?.close();
  fs.rmSync(work, { recursive: true, force: true });
  if (admin) {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`drop database if exists ${dbName} with (force)`);
    await c.end();
  }
}
