-- A workspace's own mail domains (issue #31): one workspace per name whatever its case (unique
-- index on lower(name)), registered with Resend, re-checked on a backoff schedule while pending.
-- An inbox may sit on one; the foreign key (no action, checked at the end of the statement, so a
-- workspace's deletion cascading to both still works) keeps a domain with inboxes from going.
CREATE TABLE "mail_domains" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"provider_id" text,
	"records" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"check_attempts" integer DEFAULT 0 NOT NULL,
	"next_check_at" timestamp with time zone,
	"checks_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_checked_at" timestamp with time zone,
	"last_error" text,
	"verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mail_domains_name_length" CHECK (char_length("mail_domains"."name") between 3 and 253)
);
--> statement-breakpoint
ALTER TABLE "inboxes" ADD COLUMN "domain_id" text;--> statement-breakpoint
ALTER TABLE "mail_domains" ADD CONSTRAINT "mail_domains_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mail_domains_name_key" ON "mail_domains" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "mail_domains_workspace_idx" ON "mail_domains" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "mail_domains_due_idx" ON "mail_domains" USING btree ("next_check_at") WHERE "mail_domains"."status" = 'pending' and "mail_domains"."next_check_at" is not null;--> statement-breakpoint
ALTER TABLE "inboxes" ADD CONSTRAINT "inboxes_domain_id_mail_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."mail_domains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inboxes_domain_idx" ON "inboxes" USING btree ("domain_id");