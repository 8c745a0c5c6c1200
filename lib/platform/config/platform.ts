import { env, type Env } from "./env";

/** Vercel's limit on a function's request (and buffered response) body: 4.5 MB. */
export const VERCEL_BODY_LIMIT_BYTES = 4_500_000;

export const onVercel = () => Boolean(process.env.VERCEL);

/** Settings a Vercel deployment cannot run with. */
export function platformProblem(e: Env = env(), vercel = onVercel()): string | null {
  if (!vercel) return null;
  if (!e.DATABASE_URL || e.DATABASE_DRIVER === "pglite") {
    return "DATABASE_URL is not set: on Vercel the embedded database cannot work (the deployment's files are read-only and each instance would have its own). Add the Neon integration, which sets DATABASE_URL and DATABASE_URL_UNPOOLED.";
  }
  if (e.MAIL_MAX_BYTES > VERCEL_BODY_LIMIT_BYTES) {
    return `MAIL_MAX_BYTES is ${e.MAIL_MAX_BYTES}, above Vercel's 4.5 MB request body limit: larger mail posted to /api/inbound/raw would be cut off by the platform, not refused with a reason. Set MAIL_MAX_BYTES to ${VERCEL_BODY_LIMIT_BYTES} or less (unset, it is 4 MiB on Vercel).`;
  }
  return null;
}
