ALTER TABLE "messages" ADD COLUMN "approval_id" text;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD COLUMN "inbox_id" text;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD COLUMN "recipient_domain" text;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD COLUMN "new_recipients" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD COLUMN "untrusted_trace" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD COLUMN "min_priority" integer;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "consumed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "consumed_by_key_id" text;--> statement-breakpoint
CREATE INDEX "messages_inbound_trace_idx" ON "messages" USING btree ("workspace_id","trace_id") WHERE direction = 'inbound';--> statement-breakpoint
CREATE INDEX "messages_approval_idx" ON "messages" USING btree ("approval_id") WHERE approval_id is not null;