CREATE TABLE "calendar_orphans" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_id" text NOT NULL,
	"link_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_event_id" text NOT NULL,
	"tagged_event_id" text,
	"provider_start" timestamp with time zone,
	"provider_end" timestamp with time zone,
	"action" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_orphans_action_check" CHECK ("calendar_orphans"."action" in ('reported', 'deleted'))
);
--> statement-breakpoint
ALTER TABLE "google_calendar_links" ADD COLUMN "drift_check_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_orphans_link_event_key" ON "calendar_orphans" USING btree ("link_id","provider_event_id");--> statement-breakpoint
CREATE INDEX "calendar_orphans_workspace_idx" ON "calendar_orphans" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "google_calendar_links_drift_idx" ON "google_calendar_links" USING btree ("drift_check_at") WHERE "google_calendar_links"."drift_check_at" is not null;