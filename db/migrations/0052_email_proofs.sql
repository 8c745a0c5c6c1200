-- Invitations in capture mode: only a link sent through a mail provider proves the address
-- (invitations.link_sent_at); otherwise the address stays unproven until a one-time code, mailed
-- through a provider only, proves it (email_proofs). A new, empty table and a nullable column.
CREATE TABLE "email_proofs" (
	"user_id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "email_proofs_attempts_check" CHECK ("email_proofs"."attempts" >= 0)
);
--> statement-breakpoint
ALTER TABLE "invitations" ADD COLUMN "link_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "email_proofs" ADD CONSTRAINT "email_proofs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;