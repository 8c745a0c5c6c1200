import { inArray, sql } from "drizzle-orm";
import { transaction } from "../../db/transaction";
import { holds, type HoldRow } from "../../db/schema";
import { AppError } from "../errors";
import { newId } from "../ids";
import type { Actor } from "../actor";
import { appendAudit, type AuditInput } from "../audit/append-audit";
import { cancelHoldExpiry, scheduleHoldExpiry } from "./expire-holds";
import { emitEvent } from "../events/emit-event";
import { lockCalendars } from "../calendars/lock-calendars";
import { findConflicts, holdConflict } from "./find-conflicts";
import { serializeHold } from "./serialize";
import { resolveTtl } from "./ttl";
import type { PlaceHoldInput } from "./schemas";

export type PlaceHoldResult = { hold: HoldRow; preempted: HoldRow[] };

/**
 * Places a tentative hold on one or more calendars, all or nothing (SPEC §4). Under the
 * calendars' locks: a confirmed event, or a live hold of equal or higher priority, refuses
 * it with hold_conflict; live holds of strictly lower priority are preempted.
 */
export async function placeHold(actor: Actor & { type: "key" }, input: PlaceHoldInput): Promise<PlaceHoldResult> {
  const ttl = resolveTtl(input.hold_ttl_seconds);
  const start = new Date(input.start_time);
  const end = new Date(input.end_time);
  const calendarIds = [...new Set(input.calendar_ids)].sort();

  return transaction(async (tx) => {
    await lockCalendars(tx, actor.workspaceId, calendarIds);
    const { events, external, liveHolds } = await findConflicts(tx, actor.workspaceId, calendarIds, start, end);
    const winners = liveHolds.filter((h) => h.priority >= input.priority);
    if (events.length || external.length || winners.length) {
      throw new AppError(
        "hold_conflict",
        events.length
          ? "The time overlaps a committed event."
          : external.length
            ? "The time overlaps busy time in a linked Google calendar."
            : `The time overlaps a live hold of priority ${Math.max(...winners.map((h) => h.priority))} (yours: ${input.priority}).`,
        { conflicts: [...events, ...external, ...winners.map((h) => holdConflict(h, actor))] },
      );
    }

    const id = newId("hold");
    const losers = liveHolds; // all strictly lower priority
    const preempted = losers.length
      ? await tx
          .update(holds)
          .set({ status: "preempted", preemptedBy: id, preemptedByPriority: input.priority, endedAt: sql`clock_timestamp()` })
          .where(inArray(holds.id, losers.map((h) => h.id)))
          .returning()
      : [];

    const [hold] = await tx
      .insert(holds)
      .values({
        id,
        workspaceId: actor.workspaceId,
        calendarIds,
        agentId: actor.agentId,
        apiKeyId: actor.keyId,
        startTime: start,
        endTime: end,
        priority: input.priority,
        ttlSeconds: ttl,
        status: "held",
        expiresAt: sql`clock_timestamp() + make_interval(secs => ${ttl})`,
        metadata: input.metadata,
      })
      .returning();

    const audit: AuditInput[] = [];
    for (const p of preempted) {
      await emitEvent(tx, actor, {
        type: "hold.preempted",
        agentId: p.agentId,
        data: { hold: serializeHold(p), preempted_by: { hold_id: id, priority: input.priority } },
      });
      audit.push({
        actor,
        action: "hold.preempted",
        resource: { type: "hold", id: p.id },
        agentId: p.agentId,
        summary: { preempted_by: id, preempting_priority: input.priority, priority: p.priority },
      });
    }
    await emitEvent(tx, actor, { type: "hold.created", agentId: actor.agentId, data: { hold: serializeHold(hold!) } });
    audit.push({
      actor,
      action: "hold.created",
      resource: { type: "hold", id },
      summary: {
        calendar_ids: calendarIds,
        start_time: start.toISOString(),
        end_time: end.toISOString(),
        priority: input.priority,
        ttl_seconds: ttl,
        preempted: preempted.map((p) => p.id),
      },
    });
    await appendAudit(tx, audit);
    scheduleHoldExpiry(hold!);
    cancelHoldExpiry(preempted.map((p) => p.id));
    return { hold: hold!, preempted };
  });
}
