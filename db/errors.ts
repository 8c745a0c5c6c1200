/** The SQLSTATE of a database error, whichever driver raised it (drizzle wraps them in `cause`). */
export function sqlState(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown) => sqlState(err) === "23505";

/** The constraint a database error names, whichever driver raised it. */
export function constraintName(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { constraint?: unknown }).constraint;
    if (typeof name === "string") return name;
  }
  return undefined;
}
