#!/usr/bin/env node
// Starts every server the e2e suite needs at once (playwright.config.ts lists them in
// E2E_SERVERS): one embedded database is migrated, each server gets a copy of it, and all `next
// start` processes start together. Playwright's own webServer list starts its servers one after
// another, each migrating its own database: ten of them took 12 of a 31-minute run on a busy
// machine. When every server answers its health check, this answers 200 on E2E_READY_PORT (what
// Playwright waits for); it stops them all when Playwright stops it.
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
/** @type {{ name: string; port: number; dataDir: string; env: Record<string, string> }[]} */
const servers = JSON.parse(process.env.E2E_SERVERS ?? "[]");
const readyPort = Number(process.env.E2E_READY_PORT);
const keepAliveMs = process.env.E2E_KEEP_ALIVE_MS ?? "65000";
const started = Date.now();
const log = (line) => console.log(`[e2e servers ${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);

// One migration, copied: a fresh database per server, each as `agentdraft db migrate` leaves it.
const template = path.join(mkdtempSync(path.join(tmpdir(), "agentdraft-e2e-template-")), "db");
execFileSync(process.execPath, [path.join(root, "bin/agentdraft.mjs"), "db", "migrate"], {
  cwd: root,
  env: { ...process.env, ...servers[0]?.env, AGENTDRAFT_DATA_DIR: template },
  stdio: ["ignore", "ignore", "inherit"],
});
for (const s of servers) cpSync(template, s.dataDir, { recursive: true });
rmSync(path.dirname(template), { recursive: true, force: true });
log(`migrated one database, copied for ${servers.length} servers`);

const nextBin = path.join(root, "node_modules/next/dist/bin/next");
const children = servers.map((s) => {
  const child = spawn(process.execPath, [nextBin, "start", "-p", String(s.port), "-H", "127.0.0.1", "--keepAliveTimeout", keepAliveMs], {
    cwd: root,
    env: { ...process.env, ...s.env, AGENTDRAFT_DATA_DIR: s.dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = (stream, out) => {
    let buffered = "";
    stream.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) out.write(`[${s.name}] ${line}\n`);
    });
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    if (!stopping) {
      log(`${s.name} (port ${s.port}) exited (${signal ?? code}) before the run ended`);
      stop(1);
    }
  });
  return child;
});

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  setTimeout(() => process.exit(code), 5_000).unref();
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once("exit", r))))).then(() => process.exit(code));
}
process.on("SIGTERM", () => stop());
process.on("SIGINT", () => stop());

// Ready as Playwright counts ready: an answer of 2xx, 3xx or 400–403.
const answers = (port) =>
  new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/api/health", timeout: 10_000 }, (res) => {
      res.resume();
      resolve(res.statusCode < 404);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
  });
const waiting = new Set(servers);
while (waiting.size > 0 && !stopping) {
  for (const s of [...waiting]) {
    if (!(await answers(s.port))) continue;
    waiting.delete(s);
    log(`${s.name} answers on ${s.port}`);
  }
  if (waiting.size > 0) await new Promise((r) => setTimeout(r, 250));
}
if (!stopping) {
  http.createServer((_, res) => res.end("ready")).listen(readyPort, "127.0.0.1", () => log(`all ${servers.length} servers answer; ready on ${readyPort}`));
}
