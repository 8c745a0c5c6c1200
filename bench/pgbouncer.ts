import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Debian's PgBouncer in transaction mode in front of `upstream`, on a free loopback port, as
 * `.ci/pgbouncer.sh` starts it (the same `.ci/pgbouncer.ini`, with the bench's upstream): run as
 * the postgres user when this process is root (PgBouncer refuses root). `stop()` ends it; it is
 * also ended when this process exits.
 */
export async function startPgBouncer(upstream: { host: string; port: number }): Promise<{ port: number; version: string; stop: () => void }> {
  const which = spawnSync("sh", ["-c", "command -v pgbouncer"], { encoding: "utf8" });
  if (which.status !== 0) throw new Error("--db pooled needs PgBouncer: apt-get install pgbouncer (Debian's, as .ci/run installs)");
  const version = spawnSync("pgbouncer", ["--version"], { encoding: "utf8" }).stdout.split("\n")[0]?.trim() ?? "pgbouncer";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-bench-pgbouncer-"));
  const port = await freePort();
  const ini = fs
    .readFileSync(".ci/pgbouncer.ini", "utf8")
    .replaceAll("@DIR@", dir)
    .replaceAll("@PORT@", String(port))
    .replace("* = host=127.0.0.1 port=5432", `* = host=${upstream.host} port=${upstream.port}`);
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), ini);
  fs.writeFileSync(path.join(dir, "users.txt"), '"postgres" ""\n');
  const root = process.getuid?.() === 0;
  const started = root
    ? (spawnSync("chown", ["-R", "postgres", dir]), spawnSync("su", ["postgres", "-s", "/bin/sh", "-c", `pgbouncer -d ${dir}/pgbouncer.ini`], { encoding: "utf8" }))
    : spawnSync("pgbouncer", ["-d", `${dir}/pgbouncer.ini`], { encoding: "utf8" });
  if (started.status !== 0) throw new Error(`pgbouncer did not start: ${started.stderr || started.stdout}`);
  let pid = 0;
  for (let i = 0; i < 60 && !pid; i++) {
    try {
      pid = Number(fs.readFileSync(path.join(dir, "pgbouncer.pid"), "utf8").trim());
    } catch {
      await sleep(100);
    }
  }
  const stop = () => {
    try {
      if (pid) process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
    process.removeListener("exit", stop);
    process.removeListener("SIGINT", interrupted);
    process.removeListener("SIGTERM", interrupted);
  };
  // Interrupted (Ctrl-C), Node runs no exit handlers by default: stop the pooler, then exit as interrupted.
  const interrupted = () => {
    stop();
    process.exit(130);
  };
  process.on("exit", stop);
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  for (let i = 0; i < 60; i++) {
    const ready = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (ready) return { port, version, stop };
    await sleep(250);
  }
  stop();
  throw new Error(`pgbouncer did not answer on 127.0.0.1:${port} (log: ${dir}/pgbouncer.log)`);
}
