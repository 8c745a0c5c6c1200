import { rmSync } from "node:fs";
import path from "node:path";

/** Removes the run's embedded database (a fresh temp directory per run, made in playwright.config.ts). */
export default function globalTeardown() {
  const dir = process.env.E2E_DATA_DIR;
  if (dir && path.basename(path.dirname(dir)).startsWith("agentdraft-e2e-")) rmSync(path.dirname(dir), { recursive: true, force: true });
}
