-- Custom SQL migration: the safety net under the conflict engine. Two confirmed events on one
-- calendar can never overlap, whatever the application does (needs btree_gist for "=").
ALTER TABLE "calendar_events"
  ADD CONSTRAINT "calendar_events_no_overlap"
  EXCLUDE USING gist ("calendar_id" WITH =, "span" WITH &&) WHERE ("status" = 'confirmed');
--> statement-breakpoint
-- Finds overlapping live holds fast: the conflict check filters held rows by time range.
CREATE INDEX "holds_held_span_idx" ON "holds" USING gist (tstzrange("start_time", "end_time", '[)')) WHERE "status" = 'held';
