// A stand-in for a server process, for the crash test (lib/platform/jobs/crash.db.test.ts): it runs
// the embedded engine over some workspaces' work and, with PRODUCE=1, keeps committing events,
// printing "ACK <event id>" after each commit (what a client would have been told). The test
// kills it with SIGKILL mid-load and starts another.
//
// Its modules load first ("LOADED"); the engine starts on "GO" (a line on stdin), then "READY".
// The test boots a process before it needs it, so what it times is the engine catching up, not
// node loading modules (seconds on a busy machine). "STATS" on stdin prints "STATS <json>": the
// engine's counters (what catching up read).
import { createInterface } from "node:readline";
import { sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { emitEvent } from "../../lib/platform/events/emit-event";
import { enabledKinds } from "../../lib/composition/job-kinds";
import { createEngine, type Engine } from "../../lib/platform/jobs/engine";
import { acquireRunnerLock } from "../../lib/platform/jobs/runner-lock";
import { setLocalEngine } from "../../lib/platform/jobs/schedule";
import { env } from "../../lib/platform/config/env";

// The workspaces whose work this engine runs (comma-separated); the first is the one it produces into.
const workspaceIds = process.env.CHILD_WORKSPACE!.split(",");
const workspaceId = workspaceIds[0]!;
const kinds = enabledKinds().map((k) => ({ ...k, source: () => sql`select * from (${k.source()}) as own where own.workspace_id in (${sql.join(workspaceIds.map((w) => sql`${w}`), sql`, `)})` }));
let engine: Engine | undefined;

function go(): void {
  // A short engine lease, so the next process takes over from a killed one quickly. The production
  // default pool (JOB_CONCURRENCY, 100) and idle poll (JOB_IDLE_POLL_MS, 2 s on a Postgres server):
  // catching up is measured as a deployment runs, driven by what the engine reads (a backlog, the
  // expiry of a dead process's leases), not by a fast poll.
  engine = createEngine({
    kinds,
    crons: [],
    concurrency: env().JOB_CONCURRENCY,
    idlePollMs: env().JOB_IDLE_POLL_MS ?? 2_000,
    lockRetryMs: 200,
    acquireLock: () => acquireRunnerLock({ name: `crash-test-${workspaceId}`, ttlMs: 1_500 }),
  });
  setLocalEngine(engine);
  engine.start();
  console.log("READY");
  if (process.env.PRODUCE === "1") {
    const actor = { type: "operator" as const, workspaceId, name: "crash-test" };
    void (async () => {
      for (let i = 0; ; i++) {
        const event = await transaction((tx) => emitEvent(tx, actor, { type: "email.received", data: { i } }));
        console.log(`ACK ${event.id}`);
      }
    })();
  }
}

createInterface({ input: process.stdin })
  .on("line", (line) => {
    if (line === "GO" && !engine) go();
    else if (line === "STATS" && engine) console.log(`STATS ${JSON.stringify(engine.stats())}`);
  })
  .on("close", () => process.exit(0)); // the test is gone
console.log("LOADED");
