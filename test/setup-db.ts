import { afterAll, beforeAll, inject } from "vitest";
import { resetEnvCache } from "../lib/config/env";
import { closeDb } from "../db/client";
import { runMigrations } from "../db/migrate";

// Each test file gets its own database handle: a fresh in-memory PGlite, or a pool on this
// run's fresh Postgres database. Tests isolate themselves further with a fresh workspace each.
if (process.env.AGENTDRAFT_TEST_DB === "postgres") {
  process.env.DATABASE_URL = inject("databaseUrl");
} else {
  delete process.env.DATABASE_URL;
}
resetEnvCache();

beforeAll(async () => {
  await runMigrations();
});

afterAll(async () => {
  await closeDb();
});
