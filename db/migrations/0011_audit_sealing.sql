ALTER TABLE "audit_entries" ALTER COLUMN "seq" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_entries" ALTER COLUMN "prev_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_entries" ALTER COLUMN "hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "position" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "txid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_entries_unsealed_idx" ON "audit_entries" USING btree ("position") WHERE "audit_entries"."hash" is null;