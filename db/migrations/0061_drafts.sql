-- Drafts (issue #31): mail an agent or a person is still writing, edited under a version
-- (optimistic concurrency), sent once through the usual send path (sent_message_id), sent back
-- with a review note, or discarded.
CREATE TABLE "drafts" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"inbox_id" text NOT NULL,
	"kind" text NOT NULL,
	"in_reply_to_message_id" text,
	"to" text[] DEFAULT '{}' NOT NULL,
	"cc" text[] DEFAULT '{}' NOT NULL,
	"bcc" text[] DEFAULT '{}' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"html" text,
	"headers" jsonb,
	"status" text DEFAULT 'draft' NOT NULL,
	"review_note" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" jsonb NOT NULL,
	"sent_message_id" text,
	"approval_id" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drafts_kind_check" CHECK ("drafts"."kind" in ('new', 'reply', 'forward')),
	CONSTRAINT "drafts_status_check" CHECK ("drafts"."status" in ('draft', 'sent', 'returned', 'discarded')),
	CONSTRAINT "drafts_parent_check" CHECK (("drafts"."kind" = 'new') = ("drafts"."in_reply_to_message_id" is null)),
	CONSTRAINT "drafts_sent_check" CHECK (("drafts"."status" = 'sent') = ("drafts"."sent_message_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "drafts" ADD CONSTRAINT "drafts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drafts" ADD CONSTRAINT "drafts_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "drafts_inbox_idx" ON "drafts" USING btree ("inbox_id","id");--> statement-breakpoint
CREATE INDEX "drafts_workspace_idx" ON "drafts" USING btree ("workspace_id","id");