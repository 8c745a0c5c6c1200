import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { apiKeys } from "./api-keys";

/**
 * One open `GET /v1/events` stream of an API key, so the per-key bound holds across server
 * instances. Renewed by the stream's heartbeats: a row whose server died expires on its own.
 */
export const eventStreamSlots = pgTable(
  "event_stream_slots",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("event_stream_slots_key_idx").on(t.keyId)],
);
