import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Piscina } from "piscina";
import { AppError } from "../../../platform/errors";
import { resetEnvCache } from "../../../platform/config/env";
import { hostileCorpus } from "../../../../test/helpers/hostile-mail";
import { closeParsePool, parseMessageOffThread, parseWorkerFile, PARSE_QUEUE_RETRY_AFTER_SECONDS } from "./parse-pool";
import type { ParseOutcome, ParseTask } from "./parse-worker";

const mail = (i: number) => Buffer.from(`From: a@b.example\r\nTo: inbox@agents.localhost\r\nSubject: n${i}\r\nMessage-ID: <n${i}@b.example>\r\n\r\nhello ${i}\r\n`);

// One thread, so its queue (16 a thread) is full after 17 messages sent at once.
const saved = { workers: process.env.MAIL_PARSE_WORKERS, timeout: process.env.MAIL_PARSE_TIMEOUT_MS };
beforeAll(() => {
  process.env.MAIL_PARSE_WORKERS = "1";
  resetEnvCache();
});
afterAll(async () => {
  await closeParsePool();
  for (const [k, v] of [["MAIL_PARSE_WORKERS", saved.workers], ["MAIL_PARSE_TIMEOUT_MS", saved.timeout]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
});

describe("the mail parse pool", () => {
  it("refuses a message for now (503, Retry-After) when its queue is full, and keeps parsing on its worker afterwards", async () => {
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => parseMessageOffThread(mail(i))));
    const refused = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason);
    const parsed = results.filter((r) => r.status === "fulfilled");
    expect(parsed.length).toBe(17); // one on the thread, sixteen waiting
    expect(refused.length).toBe(23);
    for (const err of refused) {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 503, code: "service_unavailable", extra: { reason: "parse_queue_full" }, headers: { "retry-after": String(PARSE_QUEUE_RETRY_AFTER_SECONDS) } });
    }

    // Still on the worker: only a worker enforces MAIL_PARSE_TIMEOUT_MS (this thread would parse it, slowly, to the end).
    process.env.MAIL_PARSE_TIMEOUT_MS = "100";
    resetEnvCache();
    try {
      const slow = hostileCorpus("inbox@agents.localhost").find((h) => h.name.includes("stray end tags"))!.raw;
      await expect(parseMessageOffThread(slow)).rejects.toMatchObject({ code: "unprocessable_message", extra: { reason: "parse_timeout" } });
    } finally {
      delete process.env.MAIL_PARSE_TIMEOUT_MS;
      resetEnvCache();
    }
  });

  it("counts MAIL_PARSE_TIMEOUT_MS from when a message's parsing starts, not while it waits for the thread", async () => {
    await parseMessageOffThread(mail(0)); // the thread is up
    // Each takes a few hundred ms on its own; together several times the deadline.
    const slowish = () => Buffer.from(`From: a@b.example\r\nSubject: s\r\nContent-Type: text/html\r\n\r\n${"<span>".repeat(100)}${"</i>".repeat(150_000)}\r\n`);
    await parseMessageOffThread(slowish());
    const t = performance.now();
    await parseMessageOffThread(slowish());
    const one = performance.now() - t;
    // Four times what one takes alone; sixteen in a row take about four times that.
    process.env.MAIL_PARSE_TIMEOUT_MS = String(Math.max(200, Math.round(one * 4)));
    resetEnvCache();
    try {
      const started = performance.now();
      const results = await Promise.allSettled(Array.from({ length: 16 }, () => parseMessageOffThread(slowish())));
      expect(performance.now() - started).toBeGreaterThan(Number(process.env.MAIL_PARSE_TIMEOUT_MS)); // the last ones waited past it
      expect(results.map((r) => (r.status === "rejected" ? (r.reason as AppError).extra?.reason : "parsed"))).toEqual(Array(16).fill("parsed"));
    } finally {
      delete process.env.MAIL_PARSE_TIMEOUT_MS;
      resetEnvCache();
    }
  });

  it("counts MAIL_PARSE_TIMEOUT_MS from when parsing starts, not while a cold thread loads its modules", async () => {
    await closeParsePool();
    // A deployment whose thread takes 1.5 s to load (a busy machine, a cold serverless function), with a 300 ms deadline.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-slowboot-"));
    const here = process.cwd();
    fs.mkdirSync(path.join(root, "build"), { recursive: true });
    fs.writeFileSync(
      path.join(root, "build/parse-worker.mjs"),
      `await new Promise((r) => setTimeout(r, 1500));
export default async (task) => ("warmUp" in task ? { ready: true } : { ok: true, message: { subject: "after a slow start" } });\n`,
    );
    process.env.MAIL_PARSE_TIMEOUT_MS = "300";
    resetEnvCache();
    process.chdir(root);
    try {
      const started = performance.now();
      await expect(parseMessageOffThread(mail(3))).resolves.toMatchObject({ subject: "after a slow start" });
      expect(performance.now() - started).toBeGreaterThan(1_400); // it did wait for the thread
      // The thread is up now: the next message has its whole deadline for itself.
      await expect(parseMessageOffThread(mail(4))).resolves.toMatchObject({ subject: "after a slow start" });
    } finally {
      process.chdir(here);
      delete process.env.MAIL_PARSE_TIMEOUT_MS;
      resetEnvCache();
      await closeParsePool();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses for now (503) when its threads cannot start, rather than letting each message time out and be refused for good", async () => {
    await closeParsePool();
    // A deployment with the worker's source but no TypeScript loader (what the build traced before it bundled the worker).
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-noloader-"));
    const here = process.cwd();
    fs.mkdirSync(path.join(root, "lib/domains/mail/inbound"), { recursive: true });
    fs.copyFileSync("lib/domains/mail/inbound/parse-worker.ts", path.join(root, "lib/domains/mail/inbound/parse-worker.ts"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    process.chdir(root);
    try {
      const err = await parseMessageOffThread(mail(1)).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 503, extra: { reason: "parser_unavailable" }, headers: { "retry-after": "30" } });
      // Ended by the thread's failure to start, not by a deadline running out: neither
      // MAIL_PARSE_TIMEOUT_MS (parse_timeout) nor the thread's start timeout ("did not start within").
      expect((err as AppError).message).toMatch(/could not start/);
      expect(errors.mock.calls.flat().join(" ")).toMatch(/could not start: .*tsx/);
    } finally {
      process.chdir(here);
      errors.mockRestore();
      fs.rmSync(root, { recursive: true, force: true });
      await closeParsePool();
    }
    // Back where the worker loads, the next message is parsed on a fresh pool.
    await expect(parseMessageOffThread(mail(2))).resolves.toMatchObject({ subject: "n2" });
  });

  it("runs from the built bundle where no source is deployed (a Vercel function, a standalone build)", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-deploy-"));
    try {
      expect(parseWorkerFile(root, true)).toBeNull();
      // Where the tracer copied the worker's source alone (it sees the path), production still runs the bundle.
      fs.mkdirSync(path.join(root, "lib/domains/mail/inbound"), { recursive: true });
      fs.copyFileSync("lib/domains/mail/inbound/parse-worker.ts", path.join(root, "lib/domains/mail/inbound/parse-worker.ts"));
      await promisify(execFile)(process.execPath, ["bin/build-parse-worker.mjs", "--outfile", path.join(root, "build/parse-worker.mjs")]);
      const worker = parseWorkerFile(root, true)!;
      expect(worker).toEqual({ filename: path.join(root, "build/parse-worker.mjs"), execArgv: [] });
      // The bundle alone, no TypeScript loader: what a deployment's thread runs.
      const pool = new Piscina<ParseTask, ParseOutcome>({ ...worker, maxThreads: 1 });
      try {
        const out = await pool.run({ raw: new Uint8Array(mail(1)), opts: {} });
        expect(out).toMatchObject({ ok: true, message: { subject: "n1", text: "hello 1" } });
      } finally {
        await pool.destroy();
      }
      expect(parseWorkerFile(root, false)).toMatchObject({ filename: path.join(root, "lib/domains/mail/inbound/parse-worker.ts") }); // development: the source
      expect(parseWorkerFile(process.cwd())).toMatchObject({ filename: path.join(process.cwd(), "lib/domains/mail/inbound/parse-worker.ts"), execArgv: ["--import", "tsx"] });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
