CREATE TABLE "notification_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"slack_channel_id" text,
	"dm_approvers" boolean DEFAULT false NOT NULL,
	"notification_types" text[] NOT NULL,
	"action_classes" text[],
	"min_amount" numeric(20, 4),
	"quiet_start_minute" smallint,
	"quiet_end_minute" smallint,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"include_evidence" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"failing_since" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_channels_kind_check" CHECK ("notification_channels"."kind" in ('slack', 'teams', 'discord')),
	CONSTRAINT "notification_channels_slack_check" CHECK ("notification_channels"."kind" <> 'slack' or "notification_channels"."slack_channel_id" is not null),
	CONSTRAINT "notification_channels_quiet_check" CHECK (("notification_channels"."quiet_start_minute" is null) = ("notification_channels"."quiet_end_minute" is null) and coalesce("notification_channels"."quiet_start_minute", 0) between 0 and 1439 and coalesce("notification_channels"."quiet_end_minute", 0) between 0 and 1439)
);
--> statement-breakpoint
CREATE TABLE "notification_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"subject_id" text NOT NULL,
	"type" text NOT NULL,
	"recipient" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_error" text,
	"provider_channel" text,
	"provider_ref" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_messages_status_check" CHECK ("notification_messages"."status" in ('queued', 'sent', 'failed', 'skipped'))
);
--> statement-breakpoint
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_messages" ADD CONSTRAINT "notification_messages_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_messages" ADD CONSTRAINT "notification_messages_channel_id_notification_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notification_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_channels_workspace_idx" ON "notification_channels" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_messages_once_key" ON "notification_messages" USING btree ("channel_id","subject_id","type","recipient");--> statement-breakpoint
CREATE INDEX "notification_messages_queue_idx" ON "notification_messages" USING btree ("next_attempt_at") WHERE "notification_messages"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "notification_messages_subject_idx" ON "notification_messages" USING btree ("workspace_id","subject_id");