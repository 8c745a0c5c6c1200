import { describeFailure, type Failure } from "../describe-failure";

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function cliFailure(err: unknown): Failure {
  if (err instanceof UsageError) return { code: "usage", message: err.message, exitCode: 2 };
  return describeFailure(err);
}
