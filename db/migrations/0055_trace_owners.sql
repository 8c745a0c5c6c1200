CREATE TABLE "traces" (
	"workspace_id" text NOT NULL,
	"trace_id" text NOT NULL,
	"agent_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "traces_workspace_id_trace_id_pk" PRIMARY KEY("workspace_id","trace_id")
);
--> statement-breakpoint
ALTER TABLE "traces" ADD CONSTRAINT "traces_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Traces agents started with notes before this migration are theirs (the first note's agent);
-- traces with handoffs need no row: their graph names their agents.
INSERT INTO "traces" ("workspace_id", "trace_id", "agent_id", "created_at")
SELECT DISTINCT ON ("workspace_id", "trace_id") "workspace_id", "trace_id", "agent_id", "at"
FROM "audit_entries"
WHERE "action" LIKE 'agent.%' AND "trace_id" IS NOT NULL AND "agent_id" IS NOT NULL
  AND "action" NOT IN ('agent.created', 'agent.updated', 'agent.deleted', 'agent.renamed', 'agent.disabled', 'agent.enabled')
ORDER BY "workspace_id", "trace_id", "at"
ON CONFLICT DO NOTHING;
