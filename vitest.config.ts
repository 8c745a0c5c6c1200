import { defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";
import { filesMarked, filesMocking } from "./test/suites.mjs";

// Four projects. `unit`: tests that need no database. `pglite`: every `*.db.test.ts` on the
// embedded database (PGlite in memory, as new for each file). `postgres`: the same database tests
// again, when TEST_DATABASE_URL names a server, each file on a database of its own copied from
// the run's migrated template. `pooled`: when TEST_POOLED_DATABASE_URL names a PgBouncer
// (transaction mode) in front of that server, the files marked `// @suite pooled` once more,
// through it with Neon's serverless driver: production's shape (test/suites.mjs says which files
// are marked and why).
//
// TEST_SUITE=moved-clock narrows the unit and embedded-database projects to the files marked
// `// @suite moved-clock` (.ci/moved-clock runs them under a moved clock).
const root = import.meta.dirname;
const postgres = process.env.TEST_DATABASE_URL;
const pooled = postgres && process.env.TEST_POOLED_DATABASE_URL;
const suite = process.env.TEST_SUITE;
if (suite && suite !== "moved-clock") throw new Error(`TEST_SUITE=${suite}: the only narrowed run is moved-clock.`);
const dbTests = ["**/*.db.test.ts"];
// test/static/ runs in `npm run lint` (vitest.static.config.ts), test/instances/ against a build.
const outside = ["node_modules/**", "e2e/**", ".next/**", ".data/**", "test/instances/**", "test/static/**"];
// A path as a glob that matches only itself (app/(app)/… has parentheses).
const literal = (file: string) => file.replace(/[()[\]{}*?!+@]/g, "\\$&");
const marked = (name: "pooled" | "moved-clock", db: boolean) =>
  filesMarked(root, name)
    .filter((f) => f.endsWith(".db.test.ts") === db && !f.startsWith("test/instances/") && !f.startsWith("test/static/"))
    .map(literal);

// Test files share their worker's loaded modules (isolate: false) in every project: importing the
// app again for every file was half of the suite's CPU. Each file still starts on a database equal
// to the run's migrated one (on PGlite the worker's database put back to the run's snapshot, or a
// new one opened from it: test/pglite-reset.ts; on a server, a copy of the run's migrated template)
// and makes fresh workspaces; a file that changes process.env puts it back (the run fails if it
// does not), and a file that starts background work stops it.
const database = { setupFiles: ["test/setup-db.ts"], isolate: false };
// The unit files the same way (half their CPU was importing modules again for every file), except
// those that replace a module with vi.mock: a mock must not leak into the next file in the worker,
// so they run isolated (`unit-mocks`).
const mocking = filesMocking(root).filter((f) => !f.endsWith(".db.test.ts")).map(literal);
// A unit test never opens a database; if one did, it would be in memory, not in .data/.
const unitEnv = { AGENTDRAFT_DATA_DIR: "memory://" };
const unitFiles = suite ? marked("moved-clock", false) : ["**/*.test.ts"];
// The server projects wait on sockets most of the time: one more worker than the embedded run.
const serverWorkers = Math.max(3, os.availableParallelism());

export default defineConfig({
  resolve: { alias: { "@": path.resolve(root) } },
  test: {
    exclude: outside,
    reporters: ["default", "./test/reporters/slowest-files.ts"],
    // Two workers even on two cores (vitest's default would be one): much of a test's time is
    // spent waiting on sockets and timers, which the other worker fills.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // A stall guard, not a budget: a test that hangs fails after this long. On a busy machine (CI
    // runs six jobs at once on two cores) a file's first request imports the app's routes, which
    // alone took over 30 s there.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits for what must come to pass; how long it takes is the machine's business.
    expect: { poll: { timeout: 60_000 } },
    projects: [
      {
        extends: true,
        test: { name: "unit", include: unitFiles, exclude: [...dbTests, ...outside, ...mocking], setupFiles: ["test/setup-unit.ts"], isolate: false, env: unitEnv },
      },
      {
        extends: true,
        test: { name: "unit-mocks", include: suite ? unitFiles.filter((f) => mocking.includes(f)) : mocking, exclude: [...dbTests, ...outside], env: unitEnv },
      },
      {
        extends: true,
        test: {
          name: "pglite",
          include: suite ? marked("moved-clock", true) : dbTests,
          env: { AGENTDRAFT_TEST_DB: "pglite", AGENTDRAFT_DATA_DIR: "memory://" },
          globalSetup: ["test/global-setup-pglite.ts"],
          ...database,
        },
      },
      ...(postgres && !suite
        ? [
            {
              extends: true as const,
              test: {
                name: "postgres",
                maxWorkers: serverWorkers,
                // A pool size of its own: it runs after the embedded projects (vitest runs a group at a time).
                sequence: { groupOrder: 1 },
                include: dbTests,
                env: { AGENTDRAFT_TEST_DB: "postgres" },
                globalSetup: ["test/global-setup-postgres.ts"],
                ...database,
              },
            },
          ]
        : []),
      ...(pooled && !suite
        ? [
            {
              extends: true as const,
              test: {
                name: "pooled",
                maxWorkers: serverWorkers,
                sequence: { groupOrder: 2 },
                include: marked("pooled", true),
                env: { AGENTDRAFT_TEST_DB: "pooled" },
                globalSetup: ["test/global-setup-postgres.ts"],
                ...database,
              },
            },
          ]
        : []),
    ],
  },
});
