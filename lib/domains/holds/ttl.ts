import { AppError } from "../../platform/errors";
import { env } from "../../platform/config/env";

/** The TTL to use, within the configured bounds (HOLD_TTL_MIN_SECONDS..HOLD_TTL_MAX_SECONDS). */
export function resolveTtl(requested: number | undefined, fallback = env().HOLD_TTL_DEFAULT_SECONDS): number {
  const { HOLD_TTL_MIN_SECONDS: min, HOLD_TTL_MAX_SECONDS: max } = env();
  const ttl = requested ?? Math.min(Math.max(fallback, min), max);
  if (ttl < min || ttl > max) {
    throw new AppError("validation_failed", `hold_ttl_seconds must be between ${min} and ${max}.`, {
      errors: [{ field: "hold_ttl_seconds", message: `between ${min} and ${max} seconds` }],
    });
  }
  return ttl;
}
