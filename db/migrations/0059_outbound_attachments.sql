-- Outbound attachments and forwards (issue #31): the bytes of files agents send, stored once per
-- workspace by SHA-256 (the same file sent twice is one row), and a forward's link to the
-- message it forwards.
CREATE TABLE "attachment_blobs" (
	"workspace_id" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachment_blobs_workspace_id_sha256_pk" PRIMARY KEY("workspace_id","sha256")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "forwarded_from_id" text;--> statement-breakpoint
ALTER TABLE "attachment_blobs" ADD CONSTRAINT "attachment_blobs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;