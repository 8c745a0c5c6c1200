CREATE TABLE "audit_checkpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"kid" text NOT NULL,
	"jws" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invitations" DROP CONSTRAINT "invitations_role_check";--> statement-breakpoint
ALTER TABLE "approval_decisions" DROP CONSTRAINT "approval_decisions_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "action" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "action_sha256" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "authenticated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_checkpoints" ADD CONSTRAINT "audit_checkpoints_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_checkpoints_workspace_seq_key" ON "audit_checkpoints" USING btree ("workspace_id","seq");--> statement-breakpoint
CREATE INDEX "audit_checkpoints_signed_idx" ON "audit_checkpoints" USING btree ("workspace_id","signed_at");--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_role_check" CHECK ("invitations"."role" in ('owner', 'admin', 'approver', 'viewer'));