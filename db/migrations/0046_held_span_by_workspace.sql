-- Live holds are found by workspace and time (SPEC §11: one tenant affects only itself). The
-- index the engine's conflict checks used (0006) held every workspace's live holds by time
-- alone, so a placement at 2 pm visited every tenant's live holds at 2 pm and filtered by
-- workspace and calendar. This one leads with the workspace (btree_gist, as the exclusion
-- constraint on events does); the placement, commit, availability and timeline queries all
-- name the workspace.
CREATE INDEX "holds_held_workspace_span_idx" ON "holds" USING gist ("workspace_id", tstzrange("start_time", "end_time", '[)')) WHERE "status" = 'held';
--> statement-breakpoint
DROP INDEX "holds_held_span_idx";
