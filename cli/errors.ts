import { describeFailure, type Failure } from "../lib/platform/describe-failure";
import { SchemaBehindError } from "./ensure-schema";

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function cliFailure(err: unknown): Failure {
  if (err instanceof UsageError) return { code: "usage", message: err.message, exitCode: 2 };
  if (err instanceof SchemaBehindError) return { code: "database_not_migrated", message: err.message, exitCode: 1 };
  return describeFailure(err);
}
