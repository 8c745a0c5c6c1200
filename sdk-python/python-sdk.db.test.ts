import { spawn } from "node:child_process";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../test/helpers/fixtures";
import { setTestEnv } from "../test/helpers/env";
import { getDb } from "../db/client";
import { approvals } from "../db/schema";
import { decideApproval } from "../lib/domains/approvals/decide-approval";

// Stream connections end after 2 s, so the Python events() iterator must resume with Last-Event-ID.
setTestEnv({
  API_RATE_LIMIT_BURST: "100000",
  API_RATE_LIMIT_PER_SECOND: "100000",
  EVENTS_STREAM_MAX_SECONDS: "2",
  EVENTS_HEARTBEAT_SECONDS: "1",
  EVENTS_POLL_INTERVAL_MS: "100",
});
const { url } = serveApiForTests();

/** Runs a command without blocking this process's event loop (which serves the API the command calls). */
function run(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Under .ci/moved-clock (libfaketime) CPython's time.sleep fails (clock_nanosleep with
    // TIMER_ABSTIME answers EINVAL): Python keeps the real clock while the server's is moved
    // ahead, as a real client's clock is its own.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "LD_PRELOAD" && !name.startsWith("FAKETIME"))) as NodeJS.ProcessEnv;
    const child = spawn(command, args, { env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    // A hung test is killed, and its output (which test, how far) is still reported.
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs / 1000} s)`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", () => clearTimeout(timer));
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", (error) => reject(new Error(`${command} did not start (${error.message}): the Python SDK's tests need python3 (3.11+) on PATH`)));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the Python SDK (sdk-python/) against the running API", () => {
  it("python3 -m unittest discover sdk-python/tests passes", { timeout: 240_000 }, async () => {
    const { workspace } = await newWorkspace();
    const scheduler = await newAgent(workspace.id, "scheduler");
    const planner = await newAgent(workspace.id, "planner");
    const writer = await newAgent(workspace.id, "writer");
    const key = async (agentId?: string) => (await newKey(workspace.id, agentId ? { agent_id: agentId } : {})).key;
    const approver = await newMember(workspace.id, "approver");

    // A person decides whatever the agents ask, as soon as it is pending: "[deny]" in the summary is denied.
    const db = await getDb();
    let deciding = true;
    const decisionErrors: string[] = [];
    const decider = (async () => {
      while (deciding) {
        const pending = await db.select().from(approvals).where(and(eq(approvals.workspaceId, workspace.id), eq(approvals.status, "pending")));
        for (const a of pending) {
          const deny = a.summary.includes("[deny]");
          await decideApproval(approver.actor, a.id, deny ? "deny" : "approve", deny ? "not today" : undefined).catch((e: unknown) => decisionErrors.push(String(e)));
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    try {
      const only = process.env.AGENTDRAFT_PY_TESTS ? ["-k", process.env.AGENTDRAFT_PY_TESTS] : [];
      const { code, output } = await run("python3", ["-m", "unittest", "discover", "-s", "sdk-python/tests", "-t", "sdk-python", "-v", ...only], {
        AGENTDRAFT_TEST_BASE_URL: url(),
        AGENTDRAFT_TEST_WORKSPACE_ID: workspace.id,
        AGENTDRAFT_TEST_KEY: await key(scheduler.id),
        AGENTDRAFT_TEST_ADMIN_KEY: await key(),
        AGENTDRAFT_TEST_PLANNER_KEY: await key(planner.id),
        AGENTDRAFT_TEST_WRITER_KEY: await key(writer.id),
        AGENTDRAFT_TEST_WRITER_AGENT_ID: writer.id,
        PYTHONDONTWRITEBYTECODE: "1",
      }, 200_000);
      expect(code, `python3 -m unittest failed:\n${output}\n${decisionErrors.join("\n")}`).toBe(0);
      // Every live test ran: none skipped for want of the server.
      expect(output).not.toMatch(/skipped '.*AGENTDRAFT_TEST_BASE_URL/);
      expect(output).toMatch(/^OK/m);
    } finally {
      deciding = false;
      await decider;
    }
  });
});
