import { customType, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { messages } from "./messages";

export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/**
 * The raw RFC 5322 bytes as received, kept apart from the parsed row so lists never load them.
 * The one stored copy of the message: attachments are read back out of it.
 */
export const messageSources = pgTable("message_sources", {
  messageId: text("message_id")
    .primaryKey()
    .references(() => messages.id, { onDelete: "cascade" }),
  /** Of the raw bytes as received (not of the stored, compressed ones). */
  sha256: text("sha256").notNull(),
  sizeBytes: integer("size_bytes").notNull(),
  /** How the chunks' bytes, concatenated, encode the raw bytes: `gzip`, or `identity` (as received). */
  encoding: text("encoding", { enum: ["gzip", "identity"] }).notNull().default("identity"),
});

/**
 * The stored bytes of a source in pieces, one insert and one read each: a multi-megabyte
 * message never takes the database (on PGlite, the server's own thread) in one long statement.
 */
export const messageSourceChunks = pgTable(
  "message_source_chunks",
  {
    messageId: text("message_id")
      .notNull()
      .references(() => messageSources.messageId, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    bytes: bytea("bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.seq] })],
);
