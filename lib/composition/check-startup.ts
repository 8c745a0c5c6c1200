import { sql } from "drizzle-orm";
import { migrationUrlWarning, resolveDatabaseConfig } from "../../db/config";
import { getDb } from "../../db/client";
import { describeFailure } from "../platform/describe-failure";
import { env } from "../platform/config/env";
import { parseAllowlist } from "../platform/outbound/ssrf-guard";
import { embeddedRefusal, jobRunnerMode } from "../platform/jobs/job-runner-mode";
import { authSecretProblem } from "../platform/config/auth-secret";
import { googleConfigProblem } from "../domains/calendar-sync/google/config";
import { microsoftConfigProblem } from "../domains/calendar-sync/microsoft/config";
import { productionMailProblem } from "../platform/config/mail-settings";
import { platformProblem } from "../platform/config/platform";
import { publicUrlProblem } from "../platform/config/public-url";

/** Why this server cannot serve; `transient` when it may pass by itself (the database still waking). */
import type { StartupProblem } from "../platform/config/startup-gate";
export type { StartupProblem };

/** Background-work and webhook settings that would otherwise fail later, quietly. */
function checkJobsAndWebhooks(): string | null {
  const e = env();
  try {
    parseAllowlist(e.WEBHOOK_ALLOWED_HOSTS);
  } catch (err) {
    return (err as Error).message;
  }
  if (e.NODE_ENV !== "production") return null;
  if (e.INNGEST_DEV) {
    return "INNGEST_DEV is set in production: it would serve /api/inngest without verifying Inngest's signatures. Unset it and set INNGEST_SIGNING_KEY.";
  }
  if (jobRunnerMode() === "embedded") {
    const refusal = embeddedRefusal();
    if (refusal) return refusal;
  }
  if (jobRunnerMode() === "inngest" && !e.INNGEST_SIGNING_KEY) {
    return "Background jobs are set to run on Inngest, but INNGEST_SIGNING_KEY is not set: Inngest's calls could not be verified.";
  }
  if (jobRunnerMode() === "inngest" && !e.INNGEST_EVENT_KEY) {
    return "Background jobs run on Inngest, but INNGEST_EVENT_KEY is not set: work could not be announced, and would wait for the 5-minute sweeper. Set INNGEST_EVENT_KEY (the Inngest integration sets both keys).";
  }
  return null;
}

/** Every setting that can be judged without the network, in the order an operator would fix them. */
function configurationProblem(): string | null {
  const e = env();
  if (e.NODE_ENV === "production" && !e.AGENTDRAFT_ENCRYPTION_KEYS) {
    return "AGENTDRAFT_ENCRYPTION_KEYS is required in production (comma-separated; make one with: openssl rand -base64 32).";
  }
  return checkJobsAndWebhooks() ?? googleConfigProblem() ?? microsoftConfigProblem() ?? authSecretProblem() ?? publicUrlProblem() ?? productionMailProblem() ?? platformProblem();
}

const PING_TIMEOUT_MS = 10_000;

/** A Postgres server named by DATABASE_URL answers `select 1` within the timeout. Throws if not. */
async function pingDatabase(timeoutMs: number): Promise<void> {
  const db = await getDb();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.execute(sql`select 1`),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })), timeoutMs);
        timer.unref();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The configuration a server needs before it serves: the environment parses, the production
 * secrets and services are set (each problem says what to set), and a Postgres server named by
 * DATABASE_URL answers. A database that does not answer (a Neon compute waking from suspend) is
 * transient: requests get 503 until it does. The embedded database stays lazy.
 */
export async function diagnoseStartup(o: { pingTimeoutMs?: number } = {}): Promise<StartupProblem | null> {
  try {
    const problem = configurationProblem();
    if (problem) return { reason: problem, transient: false };
    if (resolveDatabaseConfig().driver === "pglite") return null;
  } catch (err) {
    return { reason: describeFailure(err).message, transient: false };
  }
  try {
    await pingDatabase(o.pingTimeoutMs ?? PING_TIMEOUT_MS);
    return null;
  } catch (err) {
    const failure = describeFailure(err);
    return { reason: failure.message, transient: failure.code === "database_unreachable" || failure.code === "error" };
  }
}

/** What an operator should know at start-up though nothing stops serving (logged, never refused). */
export function startupWarnings(): string[] {
  try {
    return [migrationUrlWarning()].filter((w): w is string => w !== null);
  } catch {
    return []; // an unparsable DATABASE_URL is diagnoseStartup's to report
  }
}

/** The first problem's sentence, or null. */
export async function checkStartup(): Promise<string | null> {
  return (await diagnoseStartup())?.reason ?? null;
}

/**
 * Runs the checks as the server starts (instrumentation.ts). Elsewhere than on Vercel a broken
 * configuration refuses to start, with a message an operator can act on; on Vercel, where an
 * exit is only FUNCTION_INVOCATION_FAILED, requests answer 503 with the reason instead
 * (startup-gate.ts). A database still waking never stops the process: requests retry it.
 */
export async function refuseToStartIfMisconfigured(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { recordStartupCheck } = await import("../platform/config/startup-gate");
  const problem = await diagnoseStartup();
  recordStartupCheck(problem, () => diagnoseStartup({ pingTimeoutMs: 5_000 }));
  for (const warning of startupWarnings()) console.warn(`AgentDraft: ${warning}`);
  if (!problem) return;
  if (problem.transient || process.env.VERCEL) {
    console.error(`\nAgentDraft is not ready: ${problem.reason} Requests answer 503 until this is fixed${problem.transient ? " (checked again on the next request)" : ""}.\n`);
    return;
  }
  console.error(`\nAgentDraft cannot start: ${problem.reason}\n`);
  process.exit(1);
}
