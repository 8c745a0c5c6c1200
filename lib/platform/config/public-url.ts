import { ConfigError, env, type Env } from "./env";

/** Vercel's own names for a deployment's address (system environment variables, host names without a scheme). */
type VercelEnv = Partial<Record<"VERCEL" | "VERCEL_ENV" | "VERCEL_URL" | "VERCEL_BRANCH_URL" | "VERCEL_PROJECT_PRODUCTION_URL", string>> & Record<string, string | undefined>;

const MISSING =
  "AUTH_URL is not set. In production AgentDraft needs its public URL (such as https://agentdraft.example.com): links in invitations, approval notices and escalations are built from it, and background jobs have no request whose Host header could tell it.";

/** Where the public origin comes from, or null with nothing to go by. */
function derive(e: Env, vercel: VercelEnv, port: string | undefined): string | null {
  if (e.AUTH_URL) return new URL(e.AUTH_URL).origin;
  if (vercel.VERCEL) {
    // Vercel says where a deployment answers: the production domain, or a preview's own address.
    const host = vercel.VERCEL_ENV === "production" ? vercel.VERCEL_PROJECT_PRODUCTION_URL : (vercel.VERCEL_BRANCH_URL ?? vercel.VERCEL_URL);
    if (host) return `https://${host}`;
  }
  if (e.NODE_ENV === "production") return null;
  return `http://localhost:${port ?? 3000}`;
}

/** Null when the public URL is known, else what an operator must set (checked at start-up). */
export function publicUrlProblem(e: Env = env(), vercel: VercelEnv = process.env, port = process.env.PORT): string | null {
  return derive(e, vercel, port) === null ? MISSING : null;
}

let cached: { env: Env; origin: string } | undefined;

/**
 * The web app's public origin, for every link AgentDraft writes (invitations, approval notices,
 * escalations, channel messages, OAuth callbacks, the first-run link): derived once, the same for
 * a request and for a background job. AUTH_URL when set; on Vercel, the deployment's address
 * (the production domain, or a preview's); elsewhere outside production, http://localhost:$PORT.
 * In production without any of them the server does not start (publicUrlProblem), and this throws.
 */
export function publicOrigin(): string {
  const e = env();
  if (cached?.env === e) return cached.origin;
  const origin = derive(e, process.env, process.env.PORT);
  if (origin === null) throw new ConfigError(MISSING);
  cached = { env: e, origin };
  return origin;
}
