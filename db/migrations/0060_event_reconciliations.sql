-- Reconciliation after commit (issue #32): one row per committed event a person changed in Google
-- Calendar or Outlook after AgentDraft exported it (moved, cancelled, declined by all, or double-booked),
-- with the provider's version beside AgentDraft's and what now overlaps it. Written by the import sync.
CREATE TABLE "event_reconciliations" (
	"calendar_event_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_id" text NOT NULL,
	"link_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_event_id" text NOT NULL,
	"state" text NOT NULL,
	"provider_status" text NOT NULL,
	"provider_start" timestamp with time zone,
	"provider_end" timestamp with time zone,
	"changed" jsonb NOT NULL,
	"conflicts" jsonb NOT NULL,
	"provider_updated_at" timestamp with time zone,
	"provider_changed_by" text,
	"changes" integer DEFAULT 1 NOT NULL,
	"detected_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "event_reconciliations_state_check" CHECK ("event_reconciliations"."state" in ('moved_externally', 'cancelled_externally', 'conflicted', 'in_sync')),
	CONSTRAINT "event_reconciliations_status_check" CHECK ("event_reconciliations"."provider_status" in ('confirmed', 'cancelled', 'declined'))
);
--> statement-breakpoint
ALTER TABLE "event_reconciliations" ADD CONSTRAINT "event_reconciliations_calendar_event_id_calendar_events_id_fk" FOREIGN KEY ("calendar_event_id") REFERENCES "public"."calendar_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_reconciliations_attention_idx" ON "event_reconciliations" USING btree ("workspace_id","calendar_id") WHERE "event_reconciliations"."state" <> 'in_sync';