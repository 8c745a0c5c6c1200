import { defineConfig } from "vitest/config";
import path from "node:path";

// `npm run lint:static` (part of `npm run lint`): checks of the code's structure that read the
// source, not the running app (test/static/): what each route's serverless function carries, and
// the floors' rules tried on small trees. Not part of `npm test`.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: { include: ["test/static/**/*.test.ts"], testTimeout: 240_000, hookTimeout: 240_000 },
});
