import { defineConfig } from "vitest/config";
import path from "node:path";

// Four projects. `unit`: tests that need no database. `pglite`: every `*.db.test.ts` on the
// embedded database (PGlite in memory, fresh per file). `postgres`: the same database tests
// again, when TEST_DATABASE_URL names a server, on a fresh database created for this run.
// `pooled`: once more, when TEST_POOLED_DATABASE_URL names a PgBouncer (transaction mode) in
// front of that server, through it with Neon's serverless driver: production's shape.
const postgres = process.env.TEST_DATABASE_URL;
const pooled = postgres && process.env.TEST_POOLED_DATABASE_URL;
const dbTests = ["**/*.db.test.ts"];

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    exclude: ["node_modules/**", "e2e/**", ".next/**", ".data/**", "test/instances/**"],
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
          setupFiles: ["test/setup-db.ts"],
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: "postgres",
                include: dbTests,
                env: { AGENTDRAFT_TEST_DB: "postgres" },
                globalSetup: ["test/global-setup-postgres.ts"],
                setupFiles: ["test/setup-db.ts"],
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
                include: dbTests,
                env: { AGENTDRAFT_TEST_DB: "pooled" },
                globalSetup: ["test/global-setup-postgres.ts"],
                setupFiles: ["test/setup-db.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
