import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, workspaceIdColumn } from "./columns";
import { workspaces } from "./workspaces";

/**
 * An outbound effect a preview deployment did not perform (lib/platform/config/preview.ts): the webhook,
 * channel notice or calendar write it would have sent, shown in the web app instead. (Mail it
 * would have sent is captured where all captured mail is: messages and outbound_mail.)
 */
export const capturedEffects = pgTable(
  "captured_effects",
  {
    id: idColumn(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["webhooks", "notifications", "calendar"] }).notNull(),
    /** Where it would have gone: a URL, a channel, a calendar. */
    target: text("target").notNull(),
    /** What it would have said (ids and type, never a secret). */
    summary: jsonb("summary").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("captured_effects_workspace_idx").on(t.workspaceId, t.id)],
);

export type CapturedEffectRow = typeof capturedEffects.$inferSelect;
