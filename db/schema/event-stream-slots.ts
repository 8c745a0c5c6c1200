import { check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { apiKeys } from "./api-keys";
import { members } from "./members";
import { sessions } from "./sessions";

/**
 * One open live stream: a `GET /v1/events` stream of an API key, or a signed-in member's web
 * app channel (`/api/live`, of one session), so the per-key and per-member bounds hold across
 * server instances. Renewed by the stream's heartbeats: a row whose server died expires on its
 * own. Revoking the key, removing the member or ending the session deletes the row, and the
 * stream, which checks its row every few seconds, ends.
 */
export const eventStreamSlots = pgTable(
  "event_stream_slots",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    sessionToken: text("session_token").references(() => sessions.sessionToken, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("event_stream_slots_key_idx").on(t.keyId),
    index("event_stream_slots_member_idx").on(t.memberId),
    index("event_stream_slots_session_idx").on(t.sessionToken),
    check("event_stream_slots_owner_check", sql`(${t.keyId} is not null and ${t.memberId} is null and ${t.sessionToken} is null) or (${t.keyId} is null and ${t.memberId} is not null and ${t.sessionToken} is not null)`),
  ],
);
