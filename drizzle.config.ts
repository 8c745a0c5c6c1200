import { defineConfig } from "drizzle-kit";

// Used only by `npm run db:generate` to write migrations; the app applies them itself
// (`npx agentdraft db migrate`), never `drizzle-kit push`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
