import { ZodError } from "zod";
import { AppError } from "./errors";
import { ConfigError } from "./config/env";
import { DatabaseBusyError } from "../../db/pglite-lock";
import { sqlState } from "../../db/errors";

export type Failure = { code: string; message: string; exitCode: number; errors?: { field: string; message: string }[] };

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: "nothing is listening there",
  ENOTFOUND: "the host name does not resolve",
  ETIMEDOUT: "the connection timed out",
  EAI_AGAIN: "the host name could not be resolved right now",
};

/** The errno-style code of a connection failure, looking through drizzle's wrapping. */
function systemCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && CONNECTION_CODES[code]) return code;
  }
  return undefined;
}

/** Turns any error into one line a person can act on, for the CLI and health checks; never a stack trace. */
export function describeFailure(err: unknown): Failure {
  if (err instanceof ZodError) {
    const errors = err.issues.map((i) => ({ field: i.path.join(".") || "(input)", message: i.message }));
    return {
      code: "validation_failed",
      message: errors.map((e) => `${e.field}: ${e.message}`).join("; "),
      errors,
      exitCode: 2,
    };
  }
  if (err instanceof AppError) return { code: err.code, message: err.message, exitCode: 1 };
  if (err instanceof ConfigError || err instanceof DatabaseBusyError) {
    return { code: "config", message: err.message, exitCode: 1 };
  }
  const sys = systemCode(err);
  if (sys) {
    return { code: "database_unreachable", message: `Cannot reach the database at DATABASE_URL: ${CONNECTION_CODES[sys]}.`, exitCode: 1 };
  }
  const state = sqlState(err);
  if (state === "28P01" || state === "28000") {
    return { code: "database_auth", message: "The database refused the credentials in DATABASE_URL.", exitCode: 1 };
  }
  if (state === "3D000") {
    return { code: "database_missing", message: "The database named in DATABASE_URL does not exist. Create it first (createdb NAME).", exitCode: 1 };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: "error", message, exitCode: 1 };
}
