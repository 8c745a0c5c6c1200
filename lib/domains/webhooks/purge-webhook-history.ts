import { and, eq, inArray, isNotNull, lt, notExists, sql } from "drizzle-orm";
import { transaction } from "../../../db/transaction";
import { webhookDeliveries, webhookEvents } from "../../../db/schema";

/** Finished deliveries and delivered events are kept this long for the delivery log, then deleted. */
export const WEBHOOK_HISTORY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes finished deliveries older than 30 days, and outbox events fanned out more than 30
 * days ago that no pending delivery still needs. Idempotent; run hourly by the job runner.
 */
export async function purgeWebhookHistory(
  opts: { now?: Date; /** Only this workspace (tests share one database). */ workspaceId?: string } = {},
): Promise<{ deliveries: number; events: number }> {
  const now = opts.now ?? new Date();
  const cutoff = new Date(now.getTime() - WEBHOOK_HISTORY_RETENTION_MS);
  return transaction(async (tx) => {
    const deliveries = await tx
      .delete(webhookDeliveries)
      .where(
        and(
          inArray(webhookDeliveries.status, ["succeeded", "failed"]),
          lt(webhookDeliveries.completedAt, cutoff),
          opts.workspaceId ? eq(webhookDeliveries.workspaceId, opts.workspaceId) : undefined,
        ),
      )
      .returning({ id: webhookDeliveries.id });
    const events = await tx
      .delete(webhookEvents)
      .where(
        and(
          isNotNull(webhookEvents.fannedOutAt),
          lt(webhookEvents.fannedOutAt, cutoff),
          opts.workspaceId ? eq(webhookEvents.workspaceId, opts.workspaceId) : undefined,
          notExists(
            tx
              .select({ one: sql`1` })
              .from(webhookDeliveries)
              .where(sql`${webhookDeliveries.eventId} = ${webhookEvents.id} and ${webhookDeliveries.status} = 'pending'`),
          ),
        ),
      )
      .returning({ id: webhookEvents.id });
    return { deliveries: deliveries.length, events: events.length };
  });
}
