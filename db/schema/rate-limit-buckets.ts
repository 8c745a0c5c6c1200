import { boolean, doublePrecision, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** A token bucket per API key, in Postgres so the limit holds across server instances. */
export const rateLimitBuckets = pgTable("rate_limit_buckets", {
  bucket: text("bucket").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  /** Whether the last request took a token: set by the same locked update, so it is that request's answer. */
  allowed: boolean("allowed").notNull(),
  /** The bucket's limits as of its last request (agentdraft_take_tokens reads them from the upsert). */
  rate: doublePrecision("rate"),
  burst: doublePrecision("burst"),
  /** How many tokens the last request took: one, or a lease an instance spends locally (agentdraft_lease_tokens). */
  granted: integer("granted").notNull().default(1),
});
