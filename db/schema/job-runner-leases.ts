import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Which process runs the embedded job engine: a row per lease name, held by `holder` until
 * `expires_at` and renewed while it runs. A lease row (not a session advisory lock) works
 * through a transaction-mode pooler, where session state does not survive a transaction.
 */
export const jobRunnerLeases = pgTable("job_runner_leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
});
