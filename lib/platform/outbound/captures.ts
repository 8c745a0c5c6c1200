import { and, desc, eq } from "drizzle-orm";
import type { Queryable } from "../../../db/client";
import { queryable } from "../../../db/transaction";
import { capturedEffects, type CapturedEffectRow } from "../../../db/schema";
import { newId } from "../ids";
import type { OutboundKind } from "../config/preview";

/** Records an effect a preview deployment did not perform, for the web app's Captured page. */
export async function recordCapture(
  effect: { workspaceId: string; kind: Exclude<OutboundKind, "mail">; target: string; summary: Record<string, unknown> },
  q?: Queryable,
): Promise<void> {
  await (q ?? (await queryable())).insert(capturedEffects).values({ id: newId("capturedEffect"), ...effect });
}

/** A workspace's captured effects, newest first. */
export async function listCaptures(workspaceId: string, limit = 100): Promise<CapturedEffectRow[]> {
  const q = await queryable();
  return q.select().from(capturedEffects).where(and(eq(capturedEffects.workspaceId, workspaceId))).orderBy(desc(capturedEffects.id)).limit(limit);
}

/** The sentence every captured effect's log carries. */
export const CAPTURED_NOTE = "captured, not sent: this is a preview deployment (AGENTDRAFT_PREVIEW_SEND sends this kind)";
