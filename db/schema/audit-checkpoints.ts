import { bigint, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * Signed checkpoints of a workspace's audit chain (SPEC §8): the head (seq, hash) at a moment,
 * signed with the workspace's Ed25519 key as a compact JWS. Append-only (a trigger refuses
 * UPDATE, DELETE and TRUNCATE); witnesses keep copies outside the database.
 */
export const auditCheckpoints = pgTable(
  "audit_checkpoints",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "restrict" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    hash: text("hash").notNull(),
    signedAt: timestamp("signed_at", { withTimezone: true, mode: "date" }).notNull(),
    kid: text("kid").notNull(),
    jws: text("jws").notNull(),
  },
  (t) => [uniqueIndex("audit_checkpoints_workspace_seq_key").on(t.workspaceId, t.seq), index("audit_checkpoints_signed_idx").on(t.workspaceId, t.signedAt)],
);

export type AuditCheckpointRow = typeof auditCheckpoints.$inferSelect;
