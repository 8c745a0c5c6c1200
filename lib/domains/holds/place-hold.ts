import { sql } from "drizzle-orm";
import { effect } from "../../../db/effect";
import { holds, type HoldRow } from "../../../db/schema";
import { rowFromJson } from "../../../db/row-json";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { actorJson, announceOutbox, type OutboxDelivery } from "../../platform/events/outbox";
import { cancelHoldExpiry, scheduleHoldExpiry } from "./expire-holds";
import type { Conflict } from "./conflicts";
import { resolveTtl } from "./ttl";
import { aboveCeiling } from "./priority-ceiling";
import type { PlaceHoldInput } from "./schemas";

/** A live hold in the way; which agent holds it is told only to workspace-wide callers and to that agent itself. */
const conflictFor = (h: Conflict & { type: "hold" }, viewer: Actor & { type: "key" }): Conflict =>
  viewer.agentId && viewer.agentId !== h.agent_id ? { ...h, agent_id: null } : h;

export type PlaceHoldResult = { hold: HoldRow; preempted: HoldRow[] };

type Placed =
  | { hold: Record<string, unknown>; preempted: Record<string, unknown>[]; deliveries: OutboxDelivery[] }
  | { missing_calendar: string }
  | { priority_above_ceiling: { max_priority: number } }
  | { rebook_refused: { code: "not_found" } | { code: "calendar_mismatch"; calendar_id: string } | { code: "event_not_active" } | { code: "rebook_in_progress"; hold_id: string } }
  | { conflicts: { events: Conflict[]; external: Conflict[]; holds: (Conflict & { type: "hold" })[] } };

/**
 * Places a tentative hold on one or more calendars, all or nothing (SPEC §4), in one statement
 * (agentdraft_place_hold, db/migrations): under the calendars' locks, a confirmed event, busy
 * time from a linked Google calendar or a live hold of equal or higher priority refuses it with
 * hold_conflict; live holds of strictly lower priority are preempted; the hold, the outbox
 * events and the audit entries are written, and the locks end with the statement.
 */
export async function placeHold(actor: Actor & { type: "key" }, input: PlaceHoldInput, rebooksEventId: string | null = null): Promise<PlaceHoldResult> {
  const ttl = resolveTtl(input.hold_ttl_seconds);
  const calendarIds = [...new Set(input.calendar_ids)].sort();
  const placed = await effect<Placed>(sql`
    select agentdraft_place_hold(${JSON.stringify(actorJson(actor))}::jsonb, ${newId("hold")}, ${sql.param(calendarIds)}::text[],
      ${input.start_time}::timestamptz, ${input.end_time}::timestamptz, ${input.priority}::int, ${ttl}::int, ${JSON.stringify(input.metadata ?? {})}::jsonb, ${rebooksEventId}::text) as out`);
  if ("rebook_refused" in placed) throw rebookRefused(rebooksEventId!, placed.rebook_refused);
  if ("missing_calendar" in placed) throw notFound("calendar", placed.missing_calendar);
  if ("priority_above_ceiling" in placed) throw aboveCeiling(input.priority, placed.priority_above_ceiling.max_priority);
  if ("conflicts" in placed) {
    const { events, external, holds: winners } = placed.conflicts;
    throw new AppError(
      "hold_conflict",
      events.length
        ? "The time overlaps a committed event."
        : external.length
          ? "The time overlaps busy time in a linked Google calendar."
          : `The time overlaps a live hold of priority ${Math.max(...winners.map((h) => h.priority))} (yours: ${input.priority}).`,
      { conflicts: [...events, ...external, ...winners.map((h) => conflictFor(h, actor))] },
    );
  }
  const hold = rowFromJson(holds, placed.hold);
  const preempted = placed.preempted.map((p) => rowFromJson(holds, p));
  // Announced before the answer: on a serverless platform nothing runs after it.
  await Promise.all([announceOutbox(actor.workspaceId, placed.deliveries), scheduleHoldExpiry(hold), cancelHoldExpiry(preempted.map((p) => p.id))]);
  return { hold, preempted };
}

/** Why a re-booking (issue #32) was refused: the event is not the caller's, not on that calendar, not committed, or another live hold re-books it. */
function rebookRefused(eventId: string, r: Extract<Placed, { rebook_refused: unknown }>["rebook_refused"]): AppError {
  if (r.code === "not_found") return notFound("event", eventId);
  if (r.code === "calendar_mismatch") return new AppError("validation_failed", `A re-booking of event ${eventId} is a hold on its calendar, ${r.calendar_id}, alone.`);
  if (r.code === "event_not_active") return new AppError("conflict", `Event ${eventId} is no longer committed: there is nothing to re-book.`, { event_id: eventId });
  return new AppError("conflict", `Hold ${r.hold_id} already re-books event ${eventId}: commit or release it first.`, { event_id: eventId, hold_id: r.hold_id });
}
