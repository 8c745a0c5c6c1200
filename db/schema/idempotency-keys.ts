import { integer, jsonb, pgTable, primaryKey, text, timestamp, index } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { apiKeys } from "./api-keys";

/**
 * A POST's stored response, replayed for the same Idempotency-Key and body (24 h). Written
 * in the same transaction as the request's state change, so a stored response always means
 * the change happened, and a missing one means it did not.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status").notNull(),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>().notNull(),
    responseBody: text("response_body").notNull(),
    /**
     * Set instead of a response when the request's state change was one statement that stored
     * this record itself (db/effect.ts): that statement's result, from which the response is
     * rendered again on replay. responseStatus is then 0.
     */
    result: jsonb("result"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);
