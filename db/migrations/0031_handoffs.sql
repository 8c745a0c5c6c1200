CREATE TABLE "handoff_bodies" (
	"handoff_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"body" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "handoffs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"type" text NOT NULL,
	"from_agent_id" text NOT NULL,
	"to_agent_id" text NOT NULL,
	"correlation_id" text NOT NULL,
	"parent_id" text,
	"trace_id" text NOT NULL,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"claim_id" text,
	"claim_worker" text,
	"claimed_at" timestamp with time zone,
	"claim_expires_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"result" jsonb,
	"last_error" jsonb,
	"dead_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "handoffs_status_check" CHECK ("handoffs"."status" in ('pending', 'claimed', 'completed', 'dead', 'expired')),
	CONSTRAINT "handoffs_attempts_check" CHECK ("handoffs"."max_attempts" between 1 and 100 and "handoffs"."attempt" between 0 and "handoffs"."max_attempts")
);
--> statement-breakpoint
ALTER TABLE "handoff_bodies" ADD CONSTRAINT "handoff_bodies_handoff_id_handoffs_id_fk" FOREIGN KEY ("handoff_id") REFERENCES "public"."handoffs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoff_bodies" ADD CONSTRAINT "handoff_bodies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_from_agent_id_agents_id_fk" FOREIGN KEY ("from_agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_to_agent_id_agents_id_fk" FOREIGN KEY ("to_agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "handoffs_workspace_idx" ON "handoffs" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "handoffs_to_status_idx" ON "handoffs" USING btree ("workspace_id","to_agent_id","status","id");--> statement-breakpoint
CREATE INDEX "handoffs_from_idx" ON "handoffs" USING btree ("workspace_id","from_agent_id","id");--> statement-breakpoint
CREATE INDEX "handoffs_correlation_idx" ON "handoffs" USING btree ("workspace_id","correlation_id");--> statement-breakpoint
CREATE INDEX "handoffs_trace_idx" ON "handoffs" USING btree ("workspace_id","trace_id");--> statement-breakpoint
CREATE INDEX "handoffs_parent_idx" ON "handoffs" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "handoffs_claim_expiry_idx" ON "handoffs" USING btree ("claim_expires_at") WHERE "handoffs"."status" = 'claimed';--> statement-breakpoint
CREATE INDEX "handoffs_expiry_idx" ON "handoffs" USING btree ("expires_at") WHERE "handoffs"."status" in ('pending', 'claimed') and "handoffs"."expires_at" is not null;