import { afterAll } from "vitest";
import { resetEnvCache } from "../lib/platform/config/env";

/**
 * Test files share their worker's modules and process (vitest.config.ts: isolate false), so a file
 * must leave process.env as it found it: a setting it leaves behind would change the next file's
 * behaviour, depending on which worker it happens to share. Called by a setup file once it has
 * set what every file starts with; the file fails if it leaves anything else changed.
 */
export function guardProcessEnv() {
  const envAtStart = { ...process.env };
  afterAll(() => {
    const changed = Object.keys({ ...envAtStart, ...process.env }).filter((k) => envAtStart[k] !== process.env[k]);
    for (const k of changed) {
      if (envAtStart[k] === undefined) delete process.env[k];
      else process.env[k] = envAtStart[k];
    }
    resetEnvCache();
    if (changed.length > 0) throw new Error(`This test file left process.env changed (${changed.join(", ")}): restore what it sets in an afterAll.`);
  });
}
