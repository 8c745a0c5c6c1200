-- Re-booking a committed event (issue #32): a hold may be bound to the committed event it re-books;
-- committing it replaces that event and moves its provider copy (same provider event id).
ALTER TABLE "holds" ADD COLUMN IF NOT EXISTS "rebooks_event_id" text;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "holds_rebooks_event_idx" ON "holds" USING btree ("rebooks_event_id") WHERE "holds"."rebooks_event_id" is not null;
