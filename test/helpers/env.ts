import { afterAll, beforeAll } from "vitest";
import { resetEnvCache } from "../../lib/platform/config/env";

/** Sets environment variables for this test file, restoring them after. */
export function setTestEnv(vars: Record<string, string>) {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [k, v] of Object.entries(vars)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    resetEnvCache();
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvCache();
  });
}
