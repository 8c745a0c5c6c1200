import { defineConfig } from "vitest/config";
import path from "node:path";

// `npm run test:instances` (.ci/instances): three `next start` processes of the build in .next on
// one database, through PgBouncer. Not part of `npm test`: it needs a build and a pooler.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["test/instances/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
