import { text, timestamp } from "drizzle-orm/pg-core";

/** Prefixed, time-sortable ids are generated in lib/platform/ids.ts; the column is plain text. */
export const idColumn = () => text("id").primaryKey();

export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).defaultNow().notNull();

export const workspaceIdColumn = () => text("workspace_id").notNull();
