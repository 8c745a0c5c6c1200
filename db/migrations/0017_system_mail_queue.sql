ALTER TABLE "outbound_mail" DROP CONSTRAINT "outbound_mail_status_check";--> statement-breakpoint
ALTER TABLE "outbound_mail" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_mail" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbound_mail" ADD COLUMN "last_error" text;--> statement-breakpoint
CREATE INDEX "outbound_mail_queue_idx" ON "outbound_mail" USING btree ("next_attempt_at") WHERE status = 'queued';--> statement-breakpoint
ALTER TABLE "outbound_mail" ADD CONSTRAINT "outbound_mail_status_check" CHECK ("outbound_mail"."status" in ('queued', 'sent', 'captured', 'failed'));