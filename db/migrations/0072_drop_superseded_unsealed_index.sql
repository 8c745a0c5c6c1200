-- audit_entries_unsealed_idx (position) WHERE hash IS NULL has had no reader since 0054: a
-- workspace's sealer reads audit_entries_unsealed_workspace_idx (workspace_id, position), and the
-- sweep that lists workspaces with unsealed entries (seal-chain.ts, unsealedSource) reads that one
-- too. It only cost writes: an entry on every append of every request (bench:cpu's WAL by relation).
DROP INDEX "audit_entries_unsealed_idx";
