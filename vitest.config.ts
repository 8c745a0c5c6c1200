import { defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";

// Four projects. `unit`: tests that need no database. `pglite`: every `*.db.test.ts` on the
// embedded database (PGlite in memory, fresh per file). `postgres`: the same database tests
// again, when TEST_DATABASE_URL names a server, on a fresh database created for this run.
// `pooled`: once more, when TEST_POOLED_DATABASE_URL names a PgBouncer (transaction mode) in
// front of that server, through it with Neon's serverless driver: production's shape.
const postgres = process.env.TEST_DATABASE_URL;
const pooled = postgres && process.env.TEST_POOLED_DATABASE_URL;
const dbTests = ["**/*.db.test.ts"];
// On the embedded database (`npm test`'s run), test files share their worker's loaded modules
// (isolate: false): importing the app again for every file was half of the suite's CPU. Each file
// still gets a fresh database (the setup file closes the last one and opens a new one from the
// run's migrated snapshot) and fresh workspaces; a file that changes process.env puts it back, and
// a file that starts background work stops it. The server runs (CI) keep a process per file.
const shared = { setupFiles: ["test/setup-db.ts"] };

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    exclude: ["node_modules/**", "e2e/**", ".next/**", ".data/**", "test/instances/**"],
    reporters: ["default", "./test/reporters/slowest-files.ts"],
    // Two workers even on two cores (vitest's default would be one): much of a test's time is
    // spent waiting on sockets and timers, which the other worker fills.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["**/*.test.ts"], exclude: [...dbTests, "node_modules/**", "e2e/**", ".next/**", "test/instances/**"] },
      },
      {
        extends: true,
        test: {
          name: "pglite",
          include: dbTests,
          env: { AGENTDRAFT_TEST_DB: "pglite", AGENTDRAFT_DATA_DIR: "memory://" },
          globalSetup: ["test/global-setup-pglite.ts"],
          isolate: false,
          ...shared,
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: "postgres",
                // The server runs go one file at a time, each project after the last (the event
                // stream no longer waits for the oldest open transaction on the whole server,
                // issue #30 item 6, so this is now only to spare the shared CI machine).
                maxWorkers: 1,
                sequence: { groupOrder: 1 },
                include: dbTests,
                env: { AGENTDRAFT_TEST_DB: "postgres" },
                globalSetup: ["test/global-setup-postgres.ts"],
                ...shared,
              },
            },
          ]
        : []),
      ...(pooled
        ? [
            {
              extends: true as const,
              test: {
                name: "pooled",
                // The server runs go one file at a time, each project after the last (the event
                // stream no longer waits for the oldest open transaction on the whole server,
                // issue #30 item 6, so this is now only to spare the shared CI machine).
                maxWorkers: 1,
                sequence: { groupOrder: 2 },
                include: dbTests,
                env: { AGENTDRAFT_TEST_DB: "pooled" },
                globalSetup: ["test/global-setup-postgres.ts"],
                ...shared,
              },
            },
          ]
        : []),
    ],
  },
});
