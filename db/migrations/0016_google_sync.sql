CREATE TABLE "google_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"member_id" text,
	"google_email" text NOT NULL,
	"scopes" text[] NOT NULL,
	"refresh_token_sealed" text,
	"status" text DEFAULT 'active' NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "google_connections_status_check" CHECK ("google_connections"."status" in ('active', 'error', 'revoked')),
	CONSTRAINT "google_connections_token_check" CHECK ("google_connections"."status" = 'revoked' or "google_connections"."refresh_token_sealed" is not null)
);
--> statement-breakpoint
CREATE TABLE "google_calendar_links" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"google_calendar_id" text NOT NULL,
	"google_calendar_name" text,
	"sync_token" text,
	"channel_id" text,
	"channel_resource_id" text,
	"channel_token_hash" text,
	"channel_expires_at" timestamp with time zone,
	"sync_status" text DEFAULT 'pending' NOT NULL,
	"last_sync_error" text,
	"last_synced_at" timestamp with time zone,
	"sync_failures" integer DEFAULT 0 NOT NULL,
	"next_sync_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "google_calendar_links_sync_status_check" CHECK ("google_calendar_links"."sync_status" in ('pending', 'ok', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "external_busy_intervals" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_id" text NOT NULL,
	"link_id" text NOT NULL,
	"google_event_id" text NOT NULL,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"span" "tstzrange" GENERATED ALWAYS AS (tstzrange(start_time, end_time, '[)')) STORED NOT NULL,
	"imported_at" timestamp with time zone NOT NULL,
	CONSTRAINT "external_busy_time_order" CHECK ("external_busy_intervals"."end_time" > "external_busy_intervals"."start_time")
);
--> statement-breakpoint
CREATE TABLE "google_event_exports" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_event_id" text NOT NULL,
	"calendar_id" text NOT NULL,
	"hold_id" text,
	"link_id" text,
	"google_calendar_id" text NOT NULL,
	"google_event_id" text NOT NULL,
	"desired" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now(),
	"leased_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "google_event_exports_status_check" CHECK ("google_event_exports"."status" in ('pending', 'exported', 'deleted', 'failed')),
	CONSTRAINT "google_event_exports_desired_check" CHECK ("google_event_exports"."desired" in ('present', 'absent'))
);
--> statement-breakpoint
ALTER TABLE "google_connections" ADD CONSTRAINT "google_connections_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_connections" ADD CONSTRAINT "google_connections_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_calendar_links" ADD CONSTRAINT "google_calendar_links_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_calendar_links" ADD CONSTRAINT "google_calendar_links_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_calendar_links" ADD CONSTRAINT "google_calendar_links_connection_id_google_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."google_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_busy_intervals" ADD CONSTRAINT "external_busy_intervals_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_busy_intervals" ADD CONSTRAINT "external_busy_intervals_link_id_google_calendar_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."google_calendar_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "google_event_exports" ADD CONSTRAINT "google_event_exports_calendar_event_id_calendar_events_id_fk" FOREIGN KEY ("calendar_event_id") REFERENCES "public"."calendar_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "google_connections_workspace_idx" ON "google_connections" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "google_connections_live_account_key" ON "google_connections" USING btree ("workspace_id",lower("google_email")) WHERE "google_connections"."status" <> 'revoked';--> statement-breakpoint
CREATE UNIQUE INDEX "google_calendar_links_calendar_key" ON "google_calendar_links" USING btree ("calendar_id");--> statement-breakpoint
CREATE UNIQUE INDEX "google_calendar_links_google_calendar_key" ON "google_calendar_links" USING btree ("workspace_id","google_calendar_id");--> statement-breakpoint
CREATE UNIQUE INDEX "google_calendar_links_channel_key" ON "google_calendar_links" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "google_calendar_links_due_idx" ON "google_calendar_links" USING btree ("next_sync_at");--> statement-breakpoint
CREATE INDEX "google_calendar_links_connection_idx" ON "google_calendar_links" USING btree ("connection_id");--> statement-breakpoint
CREATE UNIQUE INDEX "external_busy_link_event_key" ON "external_busy_intervals" USING btree ("link_id","google_event_id");--> statement-breakpoint
CREATE INDEX "external_busy_calendar_span_idx" ON "external_busy_intervals" USING gist ("calendar_id","span");--> statement-breakpoint
CREATE UNIQUE INDEX "google_event_exports_event_key" ON "google_event_exports" USING btree ("calendar_event_id");--> statement-breakpoint
CREATE INDEX "google_event_exports_due_idx" ON "google_event_exports" USING btree ("next_attempt_at") WHERE "google_event_exports"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "google_event_exports_workspace_idx" ON "google_event_exports" USING btree ("workspace_id","id");