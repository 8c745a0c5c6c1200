ALTER TABLE "calendar_orphans" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calendar_orphans" ADD COLUMN "resolved_by" text;--> statement-breakpoint
ALTER TABLE "calendar_orphans" ADD COLUMN "resolution_note" text;--> statement-breakpoint
CREATE INDEX "calendar_orphans_open_idx" ON "calendar_orphans" USING btree ("workspace_id","calendar_id","id") WHERE "calendar_orphans"."resolved_at" is null;--> statement-breakpoint
-- Orphans the drift check deleted itself (action deleted) need no person: resolved when found.
UPDATE "calendar_orphans" SET "resolved_at" = "created_at" WHERE "action" = 'deleted';