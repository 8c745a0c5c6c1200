DROP INDEX "google_connections_live_account_key";--> statement-breakpoint
ALTER TABLE "google_connections" ADD COLUMN "provider" text DEFAULT 'google' NOT NULL;--> statement-breakpoint
ALTER TABLE "external_busy_intervals" ADD COLUMN "source" text DEFAULT 'google' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "google_connections_live_account_key" ON "google_connections" USING btree ("workspace_id","provider",lower("google_email")) WHERE "google_connections"."status" <> 'revoked';--> statement-breakpoint
ALTER TABLE "google_connections" ADD CONSTRAINT "google_connections_provider_check" CHECK ("google_connections"."provider" in ('google', 'microsoft'));