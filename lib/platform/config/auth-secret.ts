import { env } from "./env";

/** A fixed secret for development only: anyone can read it here, so production refuses it. */
const DEV_ONLY_SECRET = "agentdraft-development-only-secret-do-not-use-in-production";

/** Null when the configuration is fine, else what an operator must fix. */
export function authSecretProblem(e = env()): string | null {
  if (e.NODE_ENV === "production" && !e.AUTH_SECRET) {
    return "AUTH_SECRET is not set. The web app signs its sessions with it: set it to 32+ random characters (openssl rand -base64 32).";
  }
  return null;
}

/** The secret that protects auth cookies. Throws in production when it is missing. */
export function authSecret(e = env()): string {
  const problem = authSecretProblem(e);
  if (problem) throw new Error(problem);
  return e.AUTH_SECRET ?? DEV_ONLY_SECRET;
}
