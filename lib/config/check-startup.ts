import { sql } from "drizzle-orm";
import { resolveDatabaseConfig } from "../../db/config";
import { getDb } from "../../db/client";
import { describeFailure } from "../describe-failure";
import { env } from "./env";
import { parseAllowlist } from "../webhooks/ssrf-guard";
import { jobRunnerMode } from "../jobs/job-runner-mode";
import { authSecretProblem } from "./auth-secret";
import { googleConfigProblem } from "../google/config";

/** Background-work and webhook settings that would otherwise fail later, quietly. */
function checkJobsAndWebhooks(): string | null {
  const e = env();
  try {
    parseAllowlist(e.WEBHOOK_ALLOWED_HOSTS);
  } catch (err) {
    return (err as Error).message;
  }
  if (e.NODE_ENV === "production" && e.INNGEST_DEV) {
    return "INNGEST_DEV is set in production: it would serve /api/inngest without verifying Inngest's signatures. Unset it and set INNGEST_SIGNING_KEY.";
  }
  if (e.NODE_ENV === "production" && jobRunnerMode() === "inngest" && !e.INNGEST_SIGNING_KEY) {
    return "Background jobs are set to run on Inngest, but INNGEST_SIGNING_KEY is not set: Inngest's calls could not be verified.";
  }
  return null;
}

/**
 * Checks the configuration a server needs before it serves: the environment parses, the
 * production auth secret is set, and a Postgres server named by DATABASE_URL answers. Returns a sentence describing the first
 * problem, or null. The embedded database stays lazy (opened on first request).
 */
export async function checkStartup(): Promise<string | null> {
  try {
    if (env().NODE_ENV === "production" && !env().AGENTDRAFT_ENCRYPTION_KEYS) {
      return "AGENTDRAFT_ENCRYPTION_KEYS is required in production (comma-separated; make one with: openssl rand -base64 32).";
    }
    const jobs = checkJobsAndWebhooks();
    if (jobs) return jobs;
    const google = googleConfigProblem();
    if (google) return google;
    const secretProblem = authSecretProblem();
    if (secretProblem) return secretProblem;
    const config = resolveDatabaseConfig();
    if (config.driver === "pglite") return null;
    const db = await getDb();
    await Promise.race([
      db.execute(sql`select 1`),
      new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })), 10_000).unref()),
    ]);
    return null;
  } catch (err) {
    return describeFailure(err).message;
  }
}

/** Refuse to serve with a broken configuration, with a message an operator can act on. */
export async function refuseToStartIfMisconfigured(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const problem = await checkStartup();
  if (problem) {
    console.error(`\nAgentDraft cannot start: ${problem}\n`);
    process.exit(1);
  }
}
