import { eq, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { calendarEvents, holds, type CalendarEventRow, type HoldRow } from "../../db/schema";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { appendAudit } from "../audit/append-audit";
import { cancelHoldExpiry } from "./expire-holds";
import { emitEvent } from "../events/emit-event";
import { loadHoldForChange, assertLive } from "./load-hold";
import { serializeHold } from "./serialize";
import { queueExports } from "../google/export-event";
import { AppError } from "../errors";
import { findConflicts } from "./find-conflicts";

/**
 * Turns a live hold into committed events, one per calendar, atomically. A hold past its TTL
 * or preempted cannot be committed (hold_expired / hold_preempted), nor one whose time became
 * busy in a linked Google calendar meanwhile (hold_conflict). Committing twice returns
 * the same events.
 */
export async function commitHold(actor: Actor, holdId: string): Promise<{ hold: HoldRow; events: CalendarEventRow[] }> {
  return transaction(async (tx) => {
    const { hold, live } = await loadHoldForChange(tx, actor, holdId, { lockCalendars: true });
    if (hold.status === "committed") {
      const events = await tx.select().from(calendarEvents).where(eq(calendarEvents.holdId, holdId));
      return { hold, events };
    }
    assertLive(hold, live);
    // Busy time synced from Google after the hold was granted: committing would double-book the
    // person. The hold stays held; the agent can pick another time and release this one.
    const { external } = await findConflicts(tx, hold.workspaceId, hold.calendarIds, hold.startTime, hold.endTime, hold.id);
    if (external.length) {
      throw new AppError("hold_conflict", "Since the hold was placed, a linked Google calendar became busy in this time: it cannot be committed.", { conflicts: external });
    }
    const events = await tx
      .insert(calendarEvents)
      .values(
        hold.calendarIds.map((calendarId) => ({
          id: newId("calendarEvent"),
          workspaceId: hold.workspaceId,
          calendarId,
          holdId,
          agentId: hold.agentId,
          startTime: hold.startTime,
          endTime: hold.endTime,
          status: "confirmed" as const,
          metadata: hold.metadata,
        })),
      )
      .returning();
    const [committed] = await tx
      .update(holds)
      .set({ status: "committed", endedAt: sql`clock_timestamp()` })
      .where(eq(holds.id, holdId))
      .returning();
    // Linked calendars get their Google copy from the export job; queued here, so never lost.
    await queueExports(tx, events);
    const eventIds = events.map((e) => e.id).sort();
    await emitEvent(tx, actor, { type: "hold.committed", agentId: hold.agentId, data: { hold: serializeHold(committed!, eventIds) } });
    await appendAudit(tx, [
      { actor, action: "hold.committed", resource: { type: "hold", id: holdId }, agentId: hold.agentId, summary: { event_ids: eventIds } },
    ]);
    cancelHoldExpiry([holdId]);
    return { hold: committed!, events };
  });
}
