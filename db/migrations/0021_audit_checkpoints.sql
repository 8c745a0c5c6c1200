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
ALTER TABLE "audit_checkpoints" ADD CONSTRAINT "audit_checkpoints_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_checkpoints_workspace_seq_key" ON "audit_checkpoints" USING btree ("workspace_id","seq");--> statement-breakpoint
CREATE INDEX "audit_checkpoints_signed_idx" ON "audit_checkpoints" USING btree ("workspace_id","signed_at");