CREATE TABLE "calendars" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "holds" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_ids" text[] NOT NULL,
	"agent_id" text,
	"api_key_id" text,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"priority" integer NOT NULL,
	"ttl_seconds" integer NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"metadata" jsonb NOT NULL,
	"preempted_by" text,
	"preempted_by_priority" integer,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "holds_time_order" CHECK ("holds"."end_time" > "holds"."start_time"),
	CONSTRAINT "holds_priority_range" CHECK ("holds"."priority" between 0 and 100),
	CONSTRAINT "holds_status_check" CHECK ("holds"."status" in ('held', 'committed', 'released', 'expired', 'preempted'))
);
--> statement-breakpoint
CREATE TABLE "calendar_events" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"calendar_id" text NOT NULL,
	"hold_id" text,
	"agent_id" text,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"span" "tstzrange" GENERATED ALWAYS AS (tstzrange(start_time, end_time, '[)')) STORED NOT NULL,
	"status" text NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cancelled_at" timestamp with time zone,
	CONSTRAINT "calendar_events_time_order" CHECK ("calendar_events"."end_time" > "calendar_events"."start_time"),
	CONSTRAINT "calendar_events_status_check" CHECK ("calendar_events"."status" in ('confirmed', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calendars_workspace_idx" ON "calendars" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "holds_workspace_idx" ON "holds" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "holds_calendar_ids_idx" ON "holds" USING gin ("calendar_ids");--> statement-breakpoint
CREATE INDEX "holds_held_expiry_idx" ON "holds" USING btree ("expires_at") WHERE "holds"."status" = 'held';--> statement-breakpoint
CREATE INDEX "calendar_events_calendar_idx" ON "calendar_events" USING btree ("calendar_id","start_time");--> statement-breakpoint
CREATE INDEX "calendar_events_hold_idx" ON "calendar_events" USING btree ("hold_id");