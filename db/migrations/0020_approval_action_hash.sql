ALTER TABLE "approvals" ADD COLUMN "action" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "action_sha256" text;