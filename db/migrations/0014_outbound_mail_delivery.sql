ALTER TABLE "messages" ADD COLUMN "html_body" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "custom_headers" jsonb;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "provider_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "send_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "next_send_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "trace_id" text;--> statement-breakpoint
CREATE INDEX "messages_provider_idx" ON "messages" USING btree ("provider_id");--> statement-breakpoint
CREATE INDEX "messages_send_queue_idx" ON "messages" USING btree ("next_send_at") WHERE status = 'queued';