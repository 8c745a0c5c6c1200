import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/** A workspace's SCIM bearer token (the identity provider's): only its SHA-256 and display prefix are stored, the token is shown once. */
export const scimTokens = pgTable(
  "scim_tokens",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name"),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    /** Who created it: a member id, or `operator:cli`. */
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("scim_tokens_hash_key").on(t.hash), index("scim_tokens_workspace_idx").on(t.workspaceId)],
);

export type ScimTokenRow = typeof scimTokens.$inferSelect;
