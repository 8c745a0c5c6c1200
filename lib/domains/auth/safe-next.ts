/**
 * Where to go after signing in: a path on this site only. Anything else (another origin,
 * a protocol-relative `//host`, a backslash browsers read as a slash) goes to the overview.
 */
export function safeNext(next: string | undefined | null, fallback = "/overview"): string {
  if (!next || next.length > 4000 || !next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return fallback;
  try {
    return new URL(next, "http://x.invalid").origin === "http://x.invalid" ? next : fallback;
  } catch {
    return fallback;
  }
}
