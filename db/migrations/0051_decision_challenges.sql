-- A decision is a fresh act of a person (SPEC §13): each vote needs a user-verified passkey
-- assertion over a challenge bound to one member, approval and verdict, single use and short-lived.
-- A new, empty table, and a nullable column on approval_decisions (metadata only: no rewrite).
CREATE TABLE "decision_challenges" (
	"challenge" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"member_id" text NOT NULL,
	"approval_id" text NOT NULL,
	"decision" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "decision_challenges_decision_check" CHECK ("decision_challenges"."decision" in ('approve', 'deny'))
);
--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD COLUMN "passkey_credential_id" text;--> statement-breakpoint
ALTER TABLE "decision_challenges" ADD CONSTRAINT "decision_challenges_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "decision_challenges_member_idx" ON "decision_challenges" USING btree ("member_id");