CREATE TABLE "message_source_chunks" (
	"message_id" text NOT NULL,
	"seq" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "message_source_chunks_message_id_seq_pk" PRIMARY KEY("message_id","seq")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "body_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "message_sources" ADD COLUMN "size_bytes" integer;--> statement-breakpoint
ALTER TABLE "message_sources" ADD COLUMN "encoding" text DEFAULT 'identity' NOT NULL;--> statement-breakpoint
ALTER TABLE "attachments" ADD COLUMN "part_index" integer;--> statement-breakpoint
ALTER TABLE "message_source_chunks" ADD CONSTRAINT "message_source_chunks_message_id_message_sources_message_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."message_sources"("message_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Existing sources become one identity chunk each; existing attachments are numbered in the order they were stored (ids are monotonic).
INSERT INTO "message_source_chunks" ("message_id", "seq", "bytes") SELECT "message_id", 0, "raw" FROM "message_sources";--> statement-breakpoint
UPDATE "message_sources" SET "size_bytes" = length("raw");--> statement-breakpoint
UPDATE "attachments" a SET "part_index" = n.i FROM (SELECT "id", (row_number() OVER (PARTITION BY "message_id" ORDER BY "id")) - 1 AS i FROM "attachments") n WHERE n."id" = a."id";--> statement-breakpoint
ALTER TABLE "message_sources" ALTER COLUMN "size_bytes" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "attachments" ALTER COLUMN "part_index" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "message_sources" DROP COLUMN "raw";--> statement-breakpoint
ALTER TABLE "attachments" DROP COLUMN "content";
