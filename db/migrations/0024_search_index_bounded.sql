-- Full-text search indexes the first 64 KiB of a message's text (and 1,000 characters of its
-- subject): indexing megabytes of hostile text stalled the embedded database's thread.
ALTER TABLE "messages" DROP COLUMN "search";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', left(coalesce(subject, ''), 1000) || ' ' || left(coalesce(text, ''), 65536))) STORED;--> statement-breakpoint
CREATE INDEX "messages_search_idx" ON "messages" USING gin ("search");
