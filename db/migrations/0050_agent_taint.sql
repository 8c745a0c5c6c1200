-- Taint follows the agent, not a header (SPEC §13): what each agent (or workspace-wide key) read
-- of untrusted mail, recorded by the server, live for the workspace's taint window or until a
-- person clears it; the workspace's trusted recipient domains; lease rules naming a resource.
-- A new, empty table, and columns that are nullable or have constant defaults (metadata only
-- since Postgres 11: no rewrite); the check is added NOT VALID and validated separately, so
-- existing databases upgrade without blocking writers for a scan.
CREATE TABLE "agent_taints" (
	"workspace_id" text NOT NULL,
	"reader" text NOT NULL,
	"message_id" text NOT NULL,
	"from_email" text NOT NULL,
	"reasons" text[] NOT NULL,
	"channel" text NOT NULL,
	"first_read_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"last_read_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"cleared_at" timestamp with time zone,
	"cleared_by" text,
	CONSTRAINT "agent_taints_workspace_id_reader_message_id_pk" PRIMARY KEY("workspace_id","reader","message_id"),
	CONSTRAINT "agent_taints_channel_check" CHECK ("agent_taints"."channel" in ('api', 'mcp', 'events', 'webhook', 'handoff'))
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "taint_window_seconds" integer DEFAULT 86400 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "trusted_domains" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD COLUMN "resource" text;--> statement-breakpoint
ALTER TABLE "agent_taints" ADD CONSTRAINT "agent_taints_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_taints_live_idx" ON "agent_taints" USING btree ("workspace_id","reader","expires_at") WHERE "agent_taints"."cleared_at" is null;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_taint_window_range" CHECK ("workspaces"."taint_window_seconds" between 60 and 2592000) NOT VALID;--> statement-breakpoint
ALTER TABLE "workspaces" VALIDATE CONSTRAINT "workspaces_taint_window_range";