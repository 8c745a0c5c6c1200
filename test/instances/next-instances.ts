import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export type Instance = { name: string; url: string; child: ChildProcess; log: string; frozen: boolean };

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts `next start` (the build in .next) on a loopback port, in its own process group so it
 * can be frozen whole, with its output in a log file. Resolves once /api/health answers 200.
 */
export async function startInstance(name: string, env: Record<string, string>, port?: number): Promise<Instance> {
  port ??= await freePort();
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "agentdraft-instance-")), `${name}.log`);
  const out = fs.openSync(log, "a");
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    env: { ...process.env, ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", out, out],
    detached: true,
  });
  const instance = { name, url: `http://127.0.0.1:${port}`, child, log, frozen: false };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${tail(instance)}`);
    try {
      if ((await fetch(`${instance.url}/api/health`, { signal: AbortSignal.timeout(5_000) })).ok) return instance;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${name} did not answer /api/health within 90 s:\n${tail(instance)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The last lines of an instance's output, for a failure message. */
export const tail = (i: Instance, lines = 30) => fs.readFileSync(i.log, "utf8").split("\n").slice(-lines).join("\n");

/** Whether `pid` belongs to the instance's process group (`next start` may run its server in a child). */
export function ownsPid(i: Instance, pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    return pgrp === i.child.pid;
  } catch {
    return pid === i.child.pid;
  }
}

/** SIGSTOP / SIGCONT to the whole process group: the instance stops dead, as a frozen function does. */
export function freeze(i: Instance): void {
  process.kill(-i.child.pid!, "SIGSTOP");
  i.frozen = true;
}
export function thaw(i: Instance): void {
  process.kill(-i.child.pid!, "SIGCONT");
  i.frozen = false;
}

export function stopInstance(i: Instance): void {
  try {
    if (i.frozen) thaw(i);
    process.kill(-i.child.pid!, "SIGKILL");
  } catch {
    /* already gone */
  }
}
