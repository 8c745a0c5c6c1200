ALTER TABLE "rate_limit_buckets" ADD COLUMN "rate" double precision;--> statement-breakpoint
ALTER TABLE "rate_limit_buckets" ADD COLUMN "burst" double precision;