import { customType, pgTable, text } from "drizzle-orm/pg-core";
import { messages } from "./messages";

export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/** The raw RFC 5322 bytes as received, kept apart from the parsed row so lists never load them. */
export const messageSources = pgTable("message_sources", {
  messageId: text("message_id")
    .primaryKey()
    .references(() => messages.id, { onDelete: "cascade" }),
  sha256: text("sha256").notNull(),
  raw: bytea("raw").notNull(),
});
