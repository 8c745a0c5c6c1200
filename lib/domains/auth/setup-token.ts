import fs from "node:fs";
import path from "node:path";
import { randomBytes, timingSafeEqual, createHash } from "node:crypto";
import { env } from "../../platform/config/env";

let memoryToken: string | undefined;

/**
 * The first-run setup token: AGENTDRAFT_SETUP_TOKEN, else (outside production) one kept beside
 * the embedded database (in memory for memory:// tests), else null: setup stays locked, and the
 * first owner is invited with `npx agentdraft member invite --role owner`.
 */
export function setupToken(): string | null {
  const configured = env().AGENTDRAFT_SETUP_TOKEN;
  if (configured) return configured;
  if (env().NODE_ENV === "production") return null;
  const dir = env().AGENTDRAFT_DATA_DIR;
  if (dir.startsWith("memory://")) return (memoryToken ??= randomBytes(18).toString("base64url"));
  const file = path.join(path.resolve(dir), "setup-token");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(18).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return fs.readFileSync(file, "utf8").trim();
}

/** Constant-time check of a token a visitor gave; false when setup has no token (locked). */
export function isSetupToken(given: string | undefined | null): boolean {
  const expected = setupToken();
  if (!expected || !given) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given.trim()), digest(expected));
}
