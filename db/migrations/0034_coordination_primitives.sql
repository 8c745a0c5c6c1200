CREATE TABLE "lease_resources" (
	"workspace_id" text NOT NULL,
	"resource" text NOT NULL,
	"last_fencing_token" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lease_resources_workspace_id_resource_pk" PRIMARY KEY("workspace_id","resource")
);
--> statement-breakpoint
CREATE TABLE "leases" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"resource" text NOT NULL,
	"agent_id" text,
	"api_key_id" text,
	"fencing_token" bigint NOT NULL,
	"priority" integer NOT NULL,
	"ttl_seconds" integer NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"metadata" jsonb NOT NULL,
	"renewed_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leases_priority_range" CHECK ("leases"."priority" between 0 and 100),
	CONSTRAINT "leases_status_check" CHECK ("leases"."status" in ('active', 'released', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "message_claims" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"message_id" text NOT NULL,
	"inbox_id" text NOT NULL,
	"agent_id" text,
	"api_key_id" text,
	"status" text NOT NULL,
	"ttl_seconds" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_claims_status_check" CHECK ("message_claims"."status" in ('claimed', 'released', 'completed', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "hold_preempt_min_priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "max_priority" integer DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "approval_id" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "hold_ids" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "on_approve" text DEFAULT 'commit' NOT NULL;--> statement-breakpoint
ALTER TABLE "lease_resources" ADD CONSTRAINT "lease_resources_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_claims" ADD CONSTRAINT "message_claims_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "leases_workspace_idx" ON "leases" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "leases_one_active_key" ON "leases" USING btree ("workspace_id","resource") WHERE "leases"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "leases_token_key" ON "leases" USING btree ("workspace_id","resource","fencing_token");--> statement-breakpoint
CREATE INDEX "leases_active_expiry_idx" ON "leases" USING btree ("expires_at") WHERE "leases"."status" = 'active';--> statement-breakpoint
CREATE INDEX "message_claims_message_idx" ON "message_claims" USING btree ("message_id","id");--> statement-breakpoint
CREATE INDEX "message_claims_workspace_idx" ON "message_claims" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "message_claims_one_open_key" ON "message_claims" USING btree ("message_id") WHERE "message_claims"."status" in ('claimed', 'completed');--> statement-breakpoint
CREATE INDEX "message_claims_expiry_idx" ON "message_claims" USING btree ("expires_at") WHERE "message_claims"."status" = 'claimed';--> statement-breakpoint
CREATE INDEX "holds_approval_idx" ON "holds" USING btree ("approval_id") WHERE "holds"."approval_id" is not null;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_hold_preempt_min_priority_range" CHECK ("workspaces"."hold_preempt_min_priority" between 0 and 100);--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_max_priority_range" CHECK ("agents"."max_priority" between 0 and 100);