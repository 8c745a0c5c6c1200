// `--server-core`: the server on a core of its own, the database and the load generator on the others.
//
// On this machine the server, Postgres and the load generator share two cores, and the kernel
// decides who runs: during the hold rows the server's one thread is runnable almost all the time
// but waits for a core a fifth to a quarter of it, behind Postgres backends (bench/README.md). A deployment
// runs its database elsewhere. With this flag the server's JavaScript thread (and whatever runs on
// it, PGlite included) gets core 0 alone; its helper threads (garbage collection, libuv's pool),
// the benchmark process, the pooler and the Postgres backends of the benchmark's database get the
// rest. Nothing else on the machine is touched: Postgres's own background processes and other
// databases' backends keep every core.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

export type CoreSplit = { server: string; rest: string };

let split: CoreSplit | null | undefined;
let sweeper: NodeJS.Timeout | null = null;
const databases = new Set<string>();
const servers = new Set<number>();
const pinned = new Set<number>();

/** Core 0 for the server, the others for the rest, on a machine of `cpus` cores (at least 2). */
export function splitFor(cpus: number): CoreSplit {
  if (cpus < 2) throw new Error(`--server-core needs at least 2 cores; this machine has ${cpus}. Run without it.`);
  return { server: "0", rest: cpus === 2 ? "1" : `1-${cpus - 1}` };
}

/** The split the flag asks for, or null; a clear error where it cannot be had. */
function coreSplit(argv: string[]): CoreSplit | null {
  if (!argv.includes("--server-core")) return null;
  const s = splitFor(os.availableParallelism());
  if (spawnSync("taskset", ["-V"]).error) throw new Error("--server-core needs taskset (util-linux): apt-get install util-linux, or run without it.");
  return s;
}

function taskset(cores: string, pid: number, allThreads: boolean): boolean {
  return spawnSync("taskset", [...(allThreads ? ["-a"] : []), "-p", "-c", cores, String(pid)], { stdio: "ignore" }).status === 0;
}

/**
 * Decides the split once, from this process's command line, and when it is on moves this process
 * (every thread), and so the processes it starts after this, onto the cores that are not the server's.
 */
export function applyCoreSplit(): void {
  if (split !== undefined) return;
  split = coreSplit(process.argv);
  if (split && !taskset(split.rest, process.pid, true)) throw new Error(`taskset could not move the benchmark (pid ${process.pid}) to cores ${split.rest}`);
}

/** The split in force, for the results file (null: the kernel places every process). */
export const coreSplitInForce = (): CoreSplit | null => split ?? null;

/** The command that starts the server: under `taskset -c <server core>` when the split is on (taskset execs it: same pid). */
export function serverCommand(argv: string[]): { file: string; args: string[] } {
  return split ? { file: "taskset", args: ["-c", split.server, ...argv] } : { file: argv[0]!, args: argv.slice(1) };
}

/** The Postgres backends serving one database (their process titles name it). */
export function backendsOf(database: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/cmdline`, "utf8").includes(` ${database} `);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A server's threads other than its JavaScript thread (the process's first, tid = pid). */
function helperThreads(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map(Number).filter((tid) => tid !== pid);
  } catch {
    return [];
  }
}

/**
 * Keeps what is not the server's JavaScript thread off its core: the benchmark database's backends
 * (Postgres forks them from its postmaster, which keeps every core) and the server's helper
 * threads (started from the JavaScript thread, so on its core), each moved when first seen, by a
 * sweep every 250 ms (pools open their connections and V8 its threads in the warm-up, before
 * anything is measured).
 */
function sweep(): void {
  if (!split) return;
  const found = [...[...databases].flatMap(backendsOf), ...[...servers].flatMap(helperThreads)];
  for (const pid of found) if (!pinned.has(pid) && taskset(split.rest, pid, false)) pinned.add(pid);
}

/** Sweeps for `item` (a database's backends, a server's helper threads) until the returned release is called. */
function track<T>(set: Set<T>, item: T): () => void {
  if (!split) return () => {};
  set.add(item);
  sweep();
  sweeper ??= setInterval(sweep, 250);
  sweeper.unref();
  return () => {
    set.delete(item);
    if (databases.size === 0 && servers.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  };
}

/** The benchmark database's backends go to the other cores; the release is called when it is dropped. */
export const keepBackendsOffServerCore = (database: string): (() => void) => track(databases, database);

/** A server started under serverCommand: its helper threads go to the other cores; the release is called when it exits. */
export const keepHelpersOffServerCore = (pid: number): (() => void) => track(servers, pid);

/** The flag as a reproduce line gives it: none, or `--server-core`. */
export const coreSplitArgs = (): string[] => (split ? ["--server-core"] : []);
